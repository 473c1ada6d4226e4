/* libFuzzer target: model files through libassimp (sim_model_load_memory), each input
 * read as a binary glTF (.glb) and as a text one (.gltf), and what loads checked
 * against the model's own invariants (indices inside the vertex array, parts inside
 * the arrays, finite bounds holding every part).
 *
 * Seeds (fuzz/corpus/fuzz_model/): tree.glb, cockpit.glb and building.glb as
 * scripts/make-models.py writes them into models/; triangle.gltf, one triangle with a
 * data: buffer and a material, written with Python's json, struct and base64. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* Debian's libassimp leaks a few bytes on some malformed files (found in the first
 * minute: 44 bytes from operator new, mutated glb seed). Nothing of this project calls
 * C++'s operator new, so an allocation through libstdc++ is libassimp's own; this
 * target reports our leaks, not the library's. */
const char *__lsan_default_suppressions(void)
{
    return "leak:libstdc++.so\n";
}

static void check(const sim_model *m)
{
    if (m->nv <= 0 || m->ni <= 0 || m->ni % 3 || m->n_parts <= 0) __builtin_trap();
    for (int i = 0; i < m->ni; i++)
        if (m->idx[i] >= (uint32_t)m->nv) __builtin_trap();
    for (int p = 0; p < m->n_parts; p++) {
        const sim_model_part *q = &m->parts[p];
        if (q->first_vertex < 0 || q->first_vertex + q->n_vertices > m->nv || q->first_index < 0 ||
            q->first_index + q->n_indices > m->ni)
            __builtin_trap();
        for (int k = 0; k < 3; k++)
            if (!(q->lo[k] >= m->lo[k]) && isfinite(q->lo[k])) __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hints[] = {"glb", "gltf"};
    for (int h = 0; h < 2; h++) {
        sim_model m;
        if (sim_model_load_memory(data, size, hints[h], "fuzz", &m, NULL) == 0) {
            check(&m);
            sim_model_free(&m);
        }
    }
    return 0;
}
