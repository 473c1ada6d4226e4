#version 330 core
// The sky as a 16 x 16 grid of quads over the screen at the far plane, its colour
// computed per vertex from the view ray (horizon colour rising to the zenith's, the far
// ground below the horizon) and interpolated: the fragments only copy it.
uniform vec3 u_fwd;
uniform vec3 u_right;   // already reversed in a mirror
uniform vec3 u_up;
uniform float u_tan_y;
uniform float u_aspect;
uniform vec3 u_zenith;
uniform vec3 u_horizon;
uniform vec3 u_ground;
out vec3 v_color;
const int N = 16;
void main()
{
    int quad = gl_VertexID / 6, corner = gl_VertexID % 6;
    ivec2 cell = ivec2(quad % N, quad / N);
    // two triangles: (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1)
    ivec2 offs[6] = ivec2[6](ivec2(0, 0), ivec2(1, 0), ivec2(1, 1), ivec2(0, 0), ivec2(1, 1), ivec2(0, 1));
    vec2 ndc = -1.0 + 2.0 * vec2(cell + offs[corner]) / float(N);
    vec3 d = normalize(u_fwd + ndc.x * u_tan_y * u_aspect * u_right + ndc.y * u_tan_y * u_up);
    if (d.z >= 0.0)
        v_color = mix(u_horizon, u_zenith, sqrt(d.z));
    else
        v_color = mix(u_horizon, u_ground, min(1.0, -d.z * 20.0));
    gl_Position = vec4(ndc, 0.99999, 1.0);
}
