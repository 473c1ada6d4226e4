#version 330 core
// The low preset's fragments: the vertex's light, fogged; in the RN_DETAIL variant
// (scene.c: the ground, roads and marks) times the materials' detail (detail.glsl: one
// texture array, the fragment stage's only cost).
in vec3 v_color;
in float v_fog;
in vec3 v_world;
uniform vec3 u_fog_color;
#ifdef RN_DETAIL
vec3 detail(vec3 world);
#endif
out vec4 o_color;
void main()
{
#ifdef RN_DETAIL
    o_color = vec4(mix(u_fog_color, v_color * detail(v_world), v_fog), 1.0);
#else
    o_color = vec4(mix(u_fog_color, v_color, v_fog), 1.0);
#endif
}
