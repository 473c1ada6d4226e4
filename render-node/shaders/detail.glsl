#version 330 core
// The materials' detail factor (render-node/materials.h), linked into the RN_DETAIL
// variants of lit.frag and flat.frag (every preset; scene.c draws the ground, roads,
// marks and concrete with them, the rest and --no-detail with the variants without):
// the texture array sampled in world coordinates, 1 where u_material is 0. Medium and
// high add two samples: near the eye one 5.3 times finer (grain and blades the base
// scale magnifies into blur), and one 23 times coarser that varies the ground so that
// its repeats do not line up. llvmpipe runs every sample of a shader for every fragment
// (a branch is not skipped), so low takes the first alone.
uniform sampler2DArray u_detail;
uniform int u_material;     // 0 none, 1 asphalt, 2 paint, 3 ground, 4 concrete
uniform vec3 u_eye;
// -1 where there is no anisotropic filtering (software renderers, where it costs ten
// times the frame): the mip level follows the long side of a ground pixel's footprint,
// and one level finer keeps the grain at 20 to 80 m at the price of a little shimmer
uniform float u_lod_bias;
vec3 detail(vec3 world)
{
    if (u_material <= 0)
        return vec3(1.0);
    // one repeat per 4 m of asphalt, 2 m of paint, 8 m of grass, 3 m of concrete
    float scale = u_material == 3 ? 0.125 : u_material == 2 ? 0.5 : u_material == 4 ? 0.33 : 0.25;
    float layer = float(u_material - 1);
    vec3 f = 2.0 * texture(u_detail, vec3(world.xy * scale, layer), u_lod_bias).rgb;
#ifndef RN_DETAIL_ONE
    f *= mix(1.0, 2.0 * texture(u_detail, vec3(world.yx * (scale / 23.0), layer)).r, 0.7);
    float near = 1.0 - smoothstep(5.0, 25.0, distance(world, u_eye));
    f *= mix(1.0, 2.0 * texture(u_detail, vec3(world.yx * (scale * 5.3), layer)).g, 0.6 * near);
#endif
    return f;
}
