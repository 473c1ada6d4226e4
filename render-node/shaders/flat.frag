#version 330 core
// The low preset's fragments: the vertex's light times the materials' detail
// (detail.glsl: one texture array, the fragment stage's only cost), fogged.
in vec3 v_color;
in float v_fog;
in vec3 v_world;
uniform vec3 u_fog_color;
vec3 detail(vec3 world);
out vec4 o_color;
void main()
{
    o_color = vec4(mix(u_fog_color, v_color * detail(v_world), v_fog), 1.0);
}
