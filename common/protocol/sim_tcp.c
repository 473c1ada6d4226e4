/* sim_tcp: TCP_QUICKACK on a libuv TCP handle (see sim_tcp.h). */
#include "sim_tcp.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

void sim_tcp_quickack(uv_tcp_t *tcp)
{
#ifdef TCP_QUICKACK
    uv_os_fd_t fd;
    if (uv_fileno((const uv_handle_t *)tcp, &fd) != 0) return;
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
#else
    (void)tcp;
#endif
}
