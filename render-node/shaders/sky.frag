#version 330 core
// The sky's interpolated colour, and the sun's disc where it projects (pixels).
in vec3 v_color;
uniform vec2 u_sun_px;      // the sun's centre in window pixels
uniform float u_sun_r;      // its radius in pixels; 0: not in view
uniform vec3 u_sun_disc;
out vec4 o_color;
void main()
{
    vec2 s = gl_FragCoord.xy - u_sun_px;
    o_color = vec4(dot(s, s) < u_sun_r * u_sun_r ? u_sun_disc : v_color, 1.0);
}
