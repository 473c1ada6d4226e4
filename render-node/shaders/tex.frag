#version 330 core
// Premultiplied-alpha texture (cairo's), scaled by the light and fogged like the rest.
in vec2 v_uv;
in vec3 v_world;
uniform sampler2D u_tex;
uniform float u_bright;
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_k;
out vec4 o_color;
void main()
{
    vec4 t = texture(u_tex, v_uv);
    float f = exp(-u_fog_k * length(v_world - u_eye));
    vec3 c = mix(u_fog_color * t.a, t.rgb * u_bright, f);
    o_color = vec4(c, t.a);
}
