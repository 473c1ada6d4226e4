#version 330 core
// The low preset's fragments: the vertex's light, fogged.
in vec3 v_color;
in float v_fog;
uniform vec3 u_fog_color;
out vec4 o_color;
void main()
{
    o_color = vec4(mix(u_fog_color, v_color, v_fog), 1.0);
}
