/* The quality preset render-node picks when none is asked for (scene.c): low on a
 * software rasteriser, named by its GL_RENDERER string, medium on anything else. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "node.h"
#include "scene.h"

double rn_now(void) { return 0.0; } /* main.c's clock, left out of this test */

static void software_renderers_get_low(void **state)
{
    (void)state;
    /* Mesa's strings: llvmpipe (this machine's), softpipe, and the classic swrast */
    static const char *const software[] = {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe",
                                           "Mesa X11 swrast", "Software Rasterizer (swrast)"};
    for (size_t i = 0; i < sizeof software / sizeof *software; i++) {
        bool sw = false;
        assert_int_equal(rn_quality_for_renderer(software[i], &sw), RN_QUALITY_LOW);
        assert_true(sw);
    }
}

static void gpus_get_medium(void **state)
{
    (void)state;
    static const char *const gpus[] = {"NVIDIA GeForce RTX 3060/PCIe/SSE2", "AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49)",
                                       "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", ""};
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
        bool sw = true;
        assert_int_equal(rn_quality_for_renderer(gpus[i], &sw), RN_QUALITY_MEDIUM);
        assert_false(sw);
    }
    /* no context to ask: medium, as before the automatic choice */
    assert_int_equal(rn_quality_for_renderer(NULL, NULL), RN_QUALITY_MEDIUM);
    assert_string_equal(rn_quality_name(RN_QUALITY_LOW), "low");
    assert_string_equal(rn_quality_name(RN_QUALITY_HIGH), "high");
    assert_int_equal(rn_quality_parse(rn_quality_name(RN_QUALITY_MEDIUM)), RN_QUALITY_MEDIUM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(software_renderers_get_low),
        cmocka_unit_test(gpus_get_medium),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
