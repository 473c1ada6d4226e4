#version 330 core
// The low preset's lighting, computed per vertex (Gouraud) instead of per fragment: on
// llvmpipe the fragment stage is half of a frame's CPU (lit.frag against a colour copy,
// docs/performance.md). The same terms as lit.frag: sun, ambient, the ego car's low
// beam, lamps that glow, fog exp(-k d).
uniform vec3 u_sun_dir;
uniform vec3 u_sun_color;
uniform vec3 u_ambient;
uniform vec3 u_eye;
uniform float u_fog_k;
uniform float u_emissive;
uniform vec3 u_tint;
uniform float u_tint_on;
uniform vec3 u_head_pos;
uniform vec3 u_head_dir;
uniform float u_head_on;
vec3 shade(vec3 world, vec3 n, vec3 color)
{
    vec3 base = mix(color, u_tint, u_tint_on);
    if (u_emissive > 0.5)
        return base;
    vec3 light = u_ambient + u_sun_color * max(dot(n, u_sun_dir), 0.0);
    if (u_head_on > 0.5) {
        vec3 l = world - u_head_pos;
        float d = max(length(l), 0.01);
        float spot = smoothstep(0.90, 0.985, dot(l / d, u_head_dir));
        light += vec3(1.0, 0.95, 0.82) * spot * 2.2 / (1.0 + d * d / 1600.0) * max(abs(dot(n, -l / d)), 0.25);
    }
    return base * light;
}
float fog(vec3 world)
{
    return exp(-u_fog_k * length(world - u_eye));
}
