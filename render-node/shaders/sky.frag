#version 330 core
// The sky along each pixel's view ray: horizon colour (the fog's) rising to the
// zenith's, the sun's disc, and beyond the terrain below the horizon the far ground.
in vec2 v_ndc;
uniform vec3 u_fwd;
uniform vec3 u_right;   // already reversed in a mirror
uniform vec3 u_up;
uniform float u_tan_y;
uniform float u_aspect;
uniform vec3 u_zenith;
uniform vec3 u_horizon;
uniform vec3 u_ground;
uniform vec3 u_sun_dir;
uniform vec3 u_sun_disc;
out vec4 o_color;
void main()
{
    vec3 d = normalize(u_fwd + v_ndc.x * u_tan_y * u_aspect * u_right + v_ndc.y * u_tan_y * u_up);
    vec3 c;
    if (d.z >= 0.0) {
        c = mix(u_horizon, u_zenith, sqrt(d.z));
        if (dot(d, u_sun_dir) > 0.9996)
            c = u_sun_disc;
    } else {
        c = mix(u_horizon, u_ground, min(1.0, -d.z * 20.0));
    }
    o_color = vec4(c, 1.0);
}
