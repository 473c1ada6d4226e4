#version 330 core
// Instanced scenery: a kind's unit mesh (x along the object's length, y across, z up,
// the box [-0.5, 0.5] x [-0.5, 0.5] x [0, 1], or x in [0, 1] for rails) placed by
// each instance's position, heading and size, its colour times the instance's tint.
// Feeds lit.frag like lit.vert does.
in vec3 a_pos;
in vec3 a_normal;
in vec3 a_color;
in vec4 a_inst_pose;   // x, y, z, heading
in vec4 a_inst_size;   // length, width, height, unused
in vec3 a_inst_tint;
uniform mat4 u_view_proj;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
void main()
{
    float c = cos(a_inst_pose.w), s = sin(a_inst_pose.w);
    vec3 p = a_pos * a_inst_size.xyz;
    vec3 w = a_inst_pose.xyz + vec3(c * p.x - s * p.y, s * p.x + c * p.y, p.z);
    vec3 n = a_normal / a_inst_size.xyz;
    v_normal = normalize(vec3(c * n.x - s * n.y, s * n.x + c * n.y, n.z));
    v_world = w;
    v_color = a_color * a_inst_tint;
    gl_Position = u_view_proj * vec4(w, 1.0);
}
