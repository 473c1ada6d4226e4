#version 330 core
// Lit geometry (terrain, roads, cars): world position, normal and colour to the
// fragment shader.
in vec3 a_pos;
in vec3 a_normal;
in vec3 a_color;
uniform mat4 u_view_proj;
uniform mat4 u_model;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
void main()
{
    vec4 w = u_model * vec4(a_pos, 1.0);
    v_world = w.xyz;
    v_normal = mat3(u_model) * a_normal;
    v_color = a_color;
    gl_Position = u_view_proj * w;
}
