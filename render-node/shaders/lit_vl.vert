// Lit geometry of the low preset: light.glsl's lighting per vertex.
in vec3 a_pos;
in vec3 a_normal;
in vec3 a_color;
uniform mat4 u_view_proj;
uniform mat4 u_model;
out vec3 v_color;
out vec3 v_world;
out float v_fog;
void main()
{
    vec4 w = u_model * vec4(a_pos, 1.0);
    v_world = w.xyz;
    v_color = shade(w.xyz, normalize(mat3(u_model) * a_normal), a_color);
    v_fog = fog(w.xyz);
    gl_Position = u_view_proj * w;
}
