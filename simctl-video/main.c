/* simctl-video: `simctl video LOG -o OUT.mp4 ...` (docs/video.md), which simctl runs as
 * this program: it alone loads FFmpeg's libraries (common/video), which cost about 150 ms
 * of CPU to load and were loaded by every simctl command and every module start while
 * simctl linked them. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_video.h"

const char *simctl_bin_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            snprintf(dir, sizeof dir, "bin");
        } else {
            dir[n] = '\0';
            char *slash = strrchr(dir, '/');
            if (slash) *slash = '\0';
        }
    }
    return dir;
}

int main(int argc, char **argv) { return simctl_cmd_video(argc, argv); }
