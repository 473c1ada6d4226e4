#version 330 core
// Textured quads: signs in the world (u_model, u_view_proj) and the HUD overlay
// (identity matrices, positions in normalised device coordinates).
in vec3 a_pos;
in vec2 a_uv;
uniform mat4 u_view_proj;
uniform mat4 u_model;
out vec2 v_uv;
out vec3 v_world;
void main()
{
    vec4 w = u_model * vec4(a_pos, 1.0);
    v_world = w.xyz;
    v_uv = a_uv;
    gl_Position = u_view_proj * w;
}
