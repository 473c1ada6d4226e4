/* sim_codes_eaf: an ELAN .eaf read back into codes with libxml2 (sim_codes.h). Secure
 * by construction: the parser gets no XML_PARSE_NOENT (entities stay unsubstituted),
 * no XML_PARSE_DTDLOAD (no external DTD), XML_PARSE_NONET (no network), and any
 * document with a DOCTYPE is refused before its content is looked at. */
#include "sim_codes.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

typedef struct idtime {
    const char *id; /* owned by the document */
    int64_t start, end; /* -1: no time */
} idtime;

typedef struct ctx {
    const char *name;
    sim_codes *out;
    sim_error *err;
    idtime *slots, *anns;
    size_t n_slots, n_anns, cap_slots, cap_anns;
    size_t n_sorted; /* anns[0..n_sorted) is sorted by id: the part lookups see */
} ctx;

static bool is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const char *attr(xmlNode *n, const char *name)
{
    for (xmlAttr *a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0 && a->children && a->children->type == XML_TEXT_NODE)
            return (const char *)a->children->content;
        else if (strcmp((const char *)a->name, name) == 0) return "";
    return NULL;
}

static int fail(ctx *c, const xmlNode *n, const char *fmt, const char *a, const char *b)
{
    char what[400];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    return sim_error_set(c->err, SIM_EINVAL, "%s:%ld: %s: %s", c->name, n ? xmlGetLineNo(n) : 0L,
                         n ? (const char *)n->name : "document", what);
}

static int push(idtime **v, size_t *n, size_t *cap, idtime it)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        idtime *p = realloc(*v, nc * sizeof *p);
        if (!p) return SIM_ENOMEM;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = it;
    return SIM_OK;
}

static int id_cmp(const void *a, const void *b)
{
    return strcmp(((const idtime *)a)->id, ((const idtime *)b)->id);
}

static const idtime *find(const idtime *v, size_t n, const char *id)
{
    idtime key = {id, 0, 0};
    return n ? bsearch(&key, v, n, sizeof *v, id_cmp) : NULL;
}

/* Sorted, and no id twice. */
static int sort_unique(ctx *c, idtime *v, size_t n, const char *what, xmlNode *where)
{
    if (n) qsort(v, n, sizeof *v, id_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i - 1].id, v[i].id) == 0) return fail(c, where, "%s \"%s\" defined twice", what, v[i].id);
    return SIM_OK;
}

static int parse_ms(const char *s, int64_t *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0 || v > SIM_CODES_MS_MAX) return -1;
    *out = v;
    return 0;
}

static const char *value_of(xmlNode *ann)
{
    for (xmlNode *k = ann->children; k; k = k->next)
        if (is(k, "ANNOTATION_VALUE")) {
            xmlNode *t = k->children;
            return t && t->type == XML_TEXT_NODE && !t->next ? (const char *)t->content : NULL;
        }
    return NULL;
}

static int header(ctx *c, xmlNode *h)
{
    const char *units = attr(h, "TIME_UNITS");
    if (units && strcmp(units, "milliseconds"))
        return fail(c, h, "TIME_UNITS \"%s\": only milliseconds are read%s", units, NULL);
    for (xmlNode *k = h->children; k; k = k->next) {
        if (is(k, "MEDIA_DESCRIPTOR") && !c->out->media_url[0]) {
            const char *u = attr(k, "RELATIVE_MEDIA_URL");
            if (!u || !*u) u = attr(k, "MEDIA_URL");
            if (!u) return fail(c, k, "MEDIA_URL missing%s%s", NULL, NULL);
            snprintf(c->out->media_url, sizeof c->out->media_url, "%s", u);
        } else if (is(k, "PROPERTY")) {
            const char *name = attr(k, "NAME");
            const char *v = k->children && k->children->type == XML_TEXT_NODE ? (const char *)k->children->content : "";
            char *end;
            if (name && strcmp(name, "sim.t0_s") == 0) {
                double t0 = strtod(v, &end);
                if (end == v || *end || !(t0 > -1e9 && t0 < 1e9))
                    return fail(c, k, "sim.t0_s \"%s\": expected seconds%s", v, NULL);
                c->out->t0 = t0;
                c->out->has_t0 = true;
            } else if (name && strcmp(name, "sim.run") == 0) {
                errno = 0;
                long long run = strtoll(v, &end, 10);
                if (end == v || *end || errno) return fail(c, k, "sim.run \"%s\": expected a run number%s", v, NULL);
                c->out->run = run;
                c->out->has_run = true;
            }
        }
    }
    return SIM_OK;
}

static int time_order(ctx *c, xmlNode *to)
{
    for (xmlNode *k = to->children; k; k = k->next) {
        if (!is(k, "TIME_SLOT")) continue;
        const char *id = attr(k, "TIME_SLOT_ID"), *tv = attr(k, "TIME_VALUE");
        if (!id || !*id) return fail(c, k, "TIME_SLOT_ID missing%s%s", NULL, NULL);
        int64_t ms = -1;
        if (tv && parse_ms(tv, &ms))
            return fail(c, k, "TIME_SLOT \"%s\": TIME_VALUE \"%s\" is not 0..4294967295 ms", id, tv);
        if (push(&c->slots, &c->n_slots, &c->cap_slots, (idtime){id, ms, ms}))
            return sim_error_set(c->err, SIM_ENOMEM, "%s: out of memory", c->name);
    }
    return sort_unique(c, c->slots, c->n_slots, "TIME_SLOT_ID", to);
}

/* One pass over the tiers: kind 0 takes the alignable annotations, kind 1 the
 * references (after every alignable one is known). A reference to a reference is
 * resolved when its target came earlier in the file or in an earlier pass. */
static int tiers(ctx *c, xmlNode *root, int kind, size_t *unresolved)
{
    for (xmlNode *t = root->children; t; t = t->next) {
        if (!is(t, "TIER")) continue;
        const char *tier = attr(t, "TIER_ID"), *who = attr(t, "ANNOTATOR");
        if (!tier || !*tier) return fail(c, t, "TIER_ID missing%s%s", NULL, NULL);
        for (xmlNode *a = t->children; a; a = a->next) {
            if (!is(a, "ANNOTATION")) continue;
            for (xmlNode *x = a->children; x; x = x->next) {
                if (x->type != XML_ELEMENT_NODE) continue;
                const char *id = attr(x, "ANNOTATION_ID");
                if (!is(x, "ALIGNABLE_ANNOTATION") && !is(x, "REF_ANNOTATION"))
                    return fail(c, x, "unknown annotation element in TIER \"%s\"%s", tier, NULL);
                if (!id || !*id) return fail(c, x, "ANNOTATION_ID missing in TIER \"%s\"%s", tier, NULL);
                const char *v = value_of(x);
                if (!v) v = "";
                int64_t s = -1, e = -1;
                if (is(x, "ALIGNABLE_ANNOTATION")) {
                    if (kind != 0) continue;
                    const char *r1 = attr(x, "TIME_SLOT_REF1"), *r2 = attr(x, "TIME_SLOT_REF2");
                    const idtime *s1 = r1 ? find(c->slots, c->n_slots, r1) : NULL;
                    const idtime *s2 = r2 ? find(c->slots, c->n_slots, r2) : NULL;
                    if (!s1) return fail(c, x, "\"%s\": TIME_SLOT_REF1 \"%s\" names no TIME_SLOT", id, r1 ? r1 : "");
                    if (!s2) return fail(c, x, "\"%s\": TIME_SLOT_REF2 \"%s\" names no TIME_SLOT", id, r2 ? r2 : "");
                    s = s1->start;
                    e = s2->start;
                } else {
                    if (kind == 0) continue;
                    if (find(c->anns, c->n_sorted, id)) continue; /* resolved in an earlier pass */
                    const char *ref = attr(x, "ANNOTATION_REF");
                    if (!ref || !*ref) return fail(c, x, "\"%s\": ANNOTATION_REF missing%s", id, NULL);
                    const idtime *p = find(c->anns, c->n_sorted, ref);
                    if (!p) {
                        (*unresolved)++;
                        continue;
                    }
                    s = p->start;
                    e = p->end;
                }
                if (s >= 0 && e >= 0 && e < s) {
                    char msg[120];
                    snprintf(msg, sizeof msg, "ends (%" PRId64 " ms) before it starts (%" PRId64 " ms)", e, s);
                    return fail(c, x, "\"%s\" %s", id, msg);
                }
                if (push(&c->anns, &c->n_anns, &c->cap_anns, (idtime){id, s, e}))
                    return sim_error_set(c->err, SIM_ENOMEM, "%s: out of memory", c->name);
                if (s < 0 || e < 0) {
                    c->out->skipped++;
                    continue;
                }
                sim_error e2 = {0};
                if (sim_codes_add(c->out, tier, v, who, s, e, &e2))
                    return fail(c, x, "\"%s\": %s", id, e2.msg);
            }
        }
        /* kind 1: keep the table sorted for the next tier's lookups */
        if (kind == 1 && c->n_anns > c->n_sorted) {
            qsort(c->anns, c->n_anns, sizeof *c->anns, id_cmp);
            c->n_sorted = c->n_anns;
        }
    }
    return SIM_OK;
}

int sim_codes_eaf_parse(const char *data, size_t size, const char *name, sim_codes *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (size > INT_MAX) return sim_error_set(err, SIM_ETOOBIG, "%s: larger than 2 GiB", name);
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    if (!pc) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name);
    xmlDocPtr doc = xmlCtxtReadMemory(pc, data, (int)size, name, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = &pc->lastError;
        char msg[300];
        snprintf(msg, sizeof msg, "%s", e->message ? e->message : "not well-formed XML");
        size_t l = strlen(msg);
        while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' ')) msg[--l] = '\0';
        int line = e->line;
        xmlFreeParserCtxt(pc);
        return sim_error_set(err, SIM_EINVAL, "%s:%d: not well-formed XML: %s", name, line, msg);
    }
    xmlFreeParserCtxt(pc);
    ctx c = {.name = name, .out = out, .err = err};
    int rc = SIM_OK;
    xmlNode *root = xmlDocGetRootElement(doc);
    if (doc->intSubset || doc->extSubset) {
        rc = sim_error_set(err, SIM_EINVAL, "%s: a DOCTYPE is not accepted in an .eaf (no DTDs, no entities)", name);
        goto done;
    }
    if (!root || !is(root, "ANNOTATION_DOCUMENT")) {
        rc = fail(&c, root, "the root element must be ANNOTATION_DOCUMENT (an ELAN .eaf)%s%s", NULL, NULL);
        goto done;
    }
    xmlNode *to = NULL;
    for (xmlNode *k = root->children; k && !rc; k = k->next) {
        if (is(k, "HEADER")) rc = header(&c, k);
        else if (is(k, "TIME_ORDER")) to = k;
    }
    if (rc) goto done;
    if (!to) {
        rc = fail(&c, root, "no TIME_ORDER%s%s", NULL, NULL);
        goto done;
    }
    if ((rc = time_order(&c, to))) goto done;
    size_t unresolved = 0;
    if ((rc = tiers(&c, root, 0, &unresolved))) goto done;
    if ((rc = sort_unique(&c, c.anns, c.n_anns, "ANNOTATION_ID", root))) goto done;
    c.n_sorted = c.n_anns;
    /* references: as many passes as chains are deep (each pass resolves one level) */
    for (int pass = 0; pass < 64; pass++) {
        size_t before = c.n_anns;
        unresolved = 0;
        if ((rc = tiers(&c, root, 1, &unresolved))) goto done;
        if (!unresolved) break;
        if (c.n_anns == before) {
            rc = sim_error_set(err, SIM_EINVAL, "%s: %zu REF_ANNOTATION(s) refer to no annotation (or in a loop)",
                               name, unresolved);
            goto done;
        }
    }
    if (c.n_anns > 1 && (rc = sort_unique(&c, c.anns, c.n_anns, "ANNOTATION_ID", root))) goto done;
done:
    free(c.slots);
    free(c.anns);
    xmlFreeDoc(doc);
    if (rc) sim_codes_free(out);
    return rc;
}
