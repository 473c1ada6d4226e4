#version 330 core
// Sun and ambient light, the ego car's low beam at night, lamps that glow, and fog
// that takes contrast away with distance (exp(-k d); k = 3 / visibility leaves 5 %
// contrast at the visibility distance).
in vec3 v_world;
in vec3 v_normal;
in vec3 v_color;
uniform vec3 u_sun_dir;
uniform vec3 u_sun_color;
uniform vec3 u_ambient;
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_k;
uniform float u_emissive;   // 1: the colour is light itself (lamps)
uniform vec3 u_tint;
uniform float u_tint_on;    // 1: u_tint replaces the vertex colour
uniform vec3 u_head_pos;
uniform vec3 u_head_dir;
uniform float u_head_on;
out vec4 o_color;
void main()
{
    vec3 base = mix(v_color, u_tint, u_tint_on);
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing)
        n = -n;
    vec3 c;
    if (u_emissive > 0.5) {
        c = base;
    } else {
        vec3 light = u_ambient + u_sun_color * max(dot(n, u_sun_dir), 0.0);
        if (u_head_on > 0.5) {
            vec3 l = v_world - u_head_pos;
            float d = max(length(l), 0.01);
            float spot = smoothstep(0.90, 0.985, dot(l / d, u_head_dir));
            light += vec3(1.0, 0.95, 0.82) * spot * 2.2 / (1.0 + d * d / 1600.0)
                     * max(dot(n, -l / d), 0.25);
        }
        c = base * light;
    }
    float f = exp(-u_fog_k * length(v_world - u_eye));
    o_color = vec4(mix(u_fog_color, c, f), 1.0);
}
