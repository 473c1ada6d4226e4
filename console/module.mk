# bin/console: the web gateway (docs/console.md): libwebsockets on the libuv loop
# (Debian's build has LWS_WITH_LIBUV; its libuv event library is the package
# libwebsockets-evlib-uv, which libwebsockets-dev depends on).
console_PKGS := libwebsockets
