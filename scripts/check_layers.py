#!/usr/bin/env python3
"""The layer check in one pass: holds every component of the shared library and every
module to what it may use, and fails naming each offending include.

The rules are scripts/check-layers.sh's (which runs this program; its top comment states
them). This program reads each source file once and keeps the lookups in dictionaries:
the shell version ran a process per include and cost about 38 s of CPU per run.

Usage: python3 scripts/check_layers.py [ROOT]   (ROOT defaults to the repository)
"""
import glob
import os
import re
import sys

# Library header (prefix of the include's path) -> the pkg-config name it belongs to.
LIB_HEADERS = [
    (re.compile(r"uv\.h$|uv/"), "libuv"),
    (re.compile(r"cjson/"), "libcjson"),
    (re.compile(r"nanomsg/"), "nanomsg"),
    (re.compile(r"(sqlite3|sqlite3ext)\.h$"), "sqlite3"),
    (re.compile(r"(png|pngconf)\.h$"), "libpng"),
    (re.compile(r"SDL\.h$|SDL_|SDL2/"), "sdl2"),
    (re.compile(r"epoxy/|GL/|GLES[^/]*/|EGL/"), "epoxy"),
    (re.compile(r"cairo\.h$|cairo-|cairo/"), "cairo"),
    (re.compile(r"zlib\.h$"), "zlib"),
    (re.compile(r"fontconfig/"), "fontconfig"),
    (re.compile(r"libxml/"), "libxml-2.0"),
    (re.compile(r"libwebsockets\.h$|libwebsockets/"), "libwebsockets"),
    (re.compile(r"cmocka\.h$"), "cmocka"),
    (re.compile(r"protobuf-c/"), "libprotobuf-c"),
]
# The libraries a pure component may not use: they mean I/O, a GUI or a network.
IMPURE = "libuv nanomsg sqlite3 sdl2 epoxy cairo libpng zlib fontconfig libxml-2.0".split()
# System headers that mean I/O, processes, threads, signals or a clock.
POSIX_IO = {"stdio.h", "unistd.h", "fcntl.h", "dirent.h", "poll.h", "netdb.h", "pthread.h",
            "signal.h", "termios.h", "dlfcn.h", "time.h"}
POSIX_IO_DIRS = ("sys/", "netinet/", "arpa/", "linux/")

SYS_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<([^>]*)>', re.M)
QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]*)"', re.M)


def header_pkg(h):
    for pattern, pkg in LIB_HEADERS:
        if pattern.match(h):
            return pkg
    return ""


def posix_io_header(h):
    return h in POSIX_IO or h.startswith(POSIX_IO_DIRS)


def mkvar(path, name):
    """The words of a make variable assignment `NAME := words` in a file (first match)."""
    pattern = re.compile(r"^" + re.escape(name) + r"[ \t]*[:+?]*=[ \t]*(.*)$")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = pattern.match(line.rstrip("\n"))
                if m:
                    return m.group(1).split()
    except OSError:
        pass
    return []


def sorted_glob(pattern):
    return sorted(glob.glob(pattern))


class Check:
    def __init__(self):
        self.failed = False
        self.sources = {}

    def report(self, msg):
        print("layers: " + msg)
        self.failed = True

    def read(self, path):
        if path not in self.sources:
            with open(path, encoding="utf-8", errors="replace") as f:
                self.sources[path] = f.read()
        return self.sources[path]

    def sys_includes(self, path):
        return [h.strip() for h in SYS_INCLUDE.findall(self.read(path))]

    def quoted_includes(self, path):
        return QUOTED_INCLUDE.findall(self.read(path))

    def check_file_libs(self, path, allowed, allowed_text, who):
        for h in self.sys_includes(path):
            pkg = header_pkg(h)
            if pkg and pkg not in allowed:
                self.report(f"{path}: includes <{h}> ({pkg}), which {who} may not use "
                            f"(allowed: {allowed_text or 'none'})")


def run(root):
    os.chdir(root)
    ck = Check()
    report = ck.report
    isfile = os.path.isfile

    # Which component owns each shared-library header (the first component in order).
    owner = {}
    for f in sorted_glob("common/*/*.h"):
        if isfile(f):
            owner.setdefault(os.path.basename(f), f.split("/")[1])
    # Private headers, from every component.mk's <c>_PRIVATE.
    components = [mk.split("/")[1] for mk in sorted_glob("common/*/component.mk")]
    private = {}
    for c in components:
        mk = f"common/{c}/component.mk"
        for h in mkvar(mk, f"{c}_PRIVATE"):
            if not isfile(f"common/{c}/{h}"):
                report(f"{mk}: {c}_PRIVATE names {h}, which is not in common/{c}")
            private.setdefault(h, c)

    for c in components:
        mk = f"common/{c}/component.mk"
        uses = mkvar(mk, f"{c}_USES")
        pkgs = mkvar(mk, f"{c}_PKGS")
        pure = mkvar(mk, f"{c}_PURE")
        for u in uses:
            if not isfile(f"common/{u}/component.mk"):
                report(f"{mk}: {c}_USES names '{u}', which is no component")
        if pure:
            for p in pkgs:
                if p in IMPURE:
                    report(f"{mk}: {c} is pure but lists {p}")
            for u in uses:
                if u == "base":
                    continue
                if not mkvar(f"common/{u}/component.mk", f"{u}_PURE"):
                    report(f"{mk}: {c} is pure but uses {u}, which is not")
        for f in sorted_glob(f"common/{c}/*.c") + sorted_glob(f"common/{c}/*.h"):
            if not isfile(f):
                continue
            ck.check_file_libs(f, pkgs, " ".join(pkgs), f"component {c}")
            if pure:
                for h in ck.sys_includes(f):
                    if posix_io_header(h):
                        report(f"{f}: includes <{h}>, I/O in pure component {c} "
                               "(its module does the I/O)")
            for h in ck.quoted_includes(f):
                if "/" in h:
                    report(f'{f}: includes "{h}" by path; components include headers by name')
                    continue
                if isfile(f"common/{c}/{h}"):
                    continue
                # C that protoc-c makes at build time from the component's own proto/X.proto
                if h.endswith(".pb-c.h") and isfile(f"common/{c}/proto/{h[:-len('.pb-c.h')]}.proto"):
                    continue
                o = owner.get(h)
                if not o:
                    report(f'{f}: includes "{h}", which is in no component')
                elif o not in uses:
                    report(f'{f}: includes "{h}" from component {o}, which {c} may not use '
                           f"({c}_USES: {' '.join(uses) or 'none'})")

    # Top-level directories, in order, for "which module holds this header".
    top_dirs = sorted(d for d in os.listdir(".") if not d.startswith(".") and os.path.isdir(d))
    modules = [m.split("/")[0] for m in sorted_glob("*/main.c")]
    core = mkvar("Makefile", "PKG_CORE")
    for d in modules:
        extra = mkvar(f"{d}/module.mk", f"{d}_PKGS") if isfile(f"{d}/module.mk") else []
        allowed = core + extra
        allowed_text = " ".join(core) + " " + " ".join(extra)
        for f in sorted_glob(f"{d}/*.c") + sorted_glob(f"{d}/*.h"):
            if not isfile(f):
                continue
            ck.check_file_libs(f, allowed, allowed_text, f"module {d}")
            for h in ck.quoted_includes(f):
                if "/" in h:
                    report(f'{f}: includes "{h}" by path; modules include their own headers '
                           "and the shared library's by name")
                    continue
                if isfile(f"{d}/{h}"):
                    continue
                if h in owner:
                    if h in private:
                        report(f'{f}: includes "{h}", private to component {private[h]}')
                    continue
                other = next((g for g in top_dirs if isfile(f"{g}/{h}")), "")
                if other:
                    report(f'{f}: includes "{h}" of module {other}; modules never include each other')
                else:
                    report(f'{f}: includes "{h}", which is neither in {d} nor in the shared library')

    # Tests, benchmarks, fuzz targets. Modules by their names with underscores.
    module_names = [(d.replace("-", "_"), d) for d in modules]
    files = []
    for pattern in ("tests/unit/*.c", "tests/integration/*.c", "tests/support/*.c",
                    "tests/support/*.h", "bench/*.c", "bench/*.h", "fuzz/*.c"):
        files += sorted_glob(pattern)
    for f in files:
        if not isfile(f):
            continue
        dir_ = f.rsplit("/", 1)[0]
        base = f.rsplit("/", 1)[1]
        own_module = ""   # the module a tests/unit/test_<dir>_*.c or fuzz/fuzz_<dir>_*.c tests
        prefix = ("test_" if dir_ == "tests/unit" and base.startswith("test_") else
                  "fuzz_" if dir_ == "fuzz" and base.startswith("fuzz_") else None)
        if prefix:
            for name, d in module_names:   # the last match wins, as in the shell version
                if base.startswith(f"{prefix}{name}_") and base.endswith(".c"):
                    own_module = d
        for h in ck.quoted_includes(f):
            if "/" in h:
                report(f'{f}: includes "{h}" by path; include headers by name')
                continue
            if isfile(f"{dir_}/{h}"):
                continue
            if isfile(f"tests/support/{h}") and (dir_.startswith("tests/") or dir_ == "bench"):
                continue
            if own_module and isfile(f"{own_module}/{h}"):
                continue
            if h in owner:
                if h in private and dir_ not in ("tests/unit", "tests/support"):
                    report(f'{f}: includes "{h}", private to component {private[h]} '
                           "(only its unit tests may)")
                continue
            mod = next((g for g in top_dirs if isfile(f"{g}/{h}") and isfile(f"{g}/main.c")), "")
            if mod:
                u = mod.replace("-", "_")
                report(f'{f}: includes "{h}" of module {mod}; only tests/unit/test_{u}_*.c '
                       f"and fuzz/fuzz_{u}_*.c may")
            else:
                report(f'{f}: includes "{h}", which is in none of {dir_}, tests/support '
                       "or the shared library")

    if not ck.failed:
        ncomp = sum(1 for d in sorted_glob("common/*/") if os.path.isdir(d))
        print(f"layers: ok ({ncomp} components, {len(modules)} modules)")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(here)))
