// Instanced scenery of the low preset (inst.vert's placement, light.glsl's lighting).
in vec3 a_pos;
in vec3 a_normal;
in vec3 a_color;
in vec4 a_inst_pose;
in vec4 a_inst_size;
in vec3 a_inst_tint;
uniform mat4 u_view_proj;
out vec3 v_color;
out vec3 v_world;
out float v_fog;
void main()
{
    float c = cos(a_inst_pose.w), s = sin(a_inst_pose.w);
    vec3 p = a_pos * a_inst_size.xyz;
    vec3 w = a_inst_pose.xyz + vec3(c * p.x - s * p.y, s * p.x + c * p.y, p.z);
    vec3 n = a_normal / a_inst_size.xyz;
    n = normalize(vec3(c * n.x - s * n.y, s * n.x + c * n.y, n.z));
    v_world = w;
    v_color = shade(w, n, a_color * a_inst_tint);
    v_fog = fog(w);
    gl_Position = u_view_proj * vec4(w, 1.0);
}
