#version 330 core
// Sun and ambient light, the ego car's low beam at night, lamps that glow, and fog
// that takes contrast away with distance (exp(-k d); k = 3 / visibility leaves 5 %
// contrast at the visibility distance), the procedural detail textures (detail.glsl) in
// the RN_DETAIL variant (scene.c: what has a material; llvmpipe would run the sample
// for every fragment of the others too).
// Medium and high presets (this file) add: the sun's shadow map,
// and a wet road in rain (darker, mirroring the sky, a glare towards the sun).
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
uniform int u_material;     // 0 none, 1 asphalt, 2 paint, 3 ground, 4 concrete
#ifdef RN_DETAIL
vec3 detail(vec3 world);    // detail.glsl
#endif
uniform float u_wet;        // 0 dry .. 1 wet road
uniform sampler2DShadow u_shadow;
uniform mat4 u_shadow_mat;  // world to the shadow map's [0, 1] coordinates
uniform float u_shadow_on;
#ifdef RN_STREET_LIGHTS
// A variant of its own (scene.c): on llvmpipe a loop costs its body's time even when it
// runs no turn (the body is run once under an empty mask), 18 to 27 ms of a 1280x720
// frame, so the program without street lights is used whenever none is near.
uniform vec3 u_lamps[8];    // street lights' heads near the eye, lit at dusk and night
uniform int u_n_lamps;
uniform float u_lamp_gain;  // 1 at night; less at dusk, when the sky still lights the street
#endif
out vec4 o_color;
void main()
{
    vec3 base = mix(v_color, u_tint, u_tint_on);
#ifdef RN_DETAIL
    base *= detail(v_world);
#endif
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing)
        n = -n;
    vec3 c;
    if (u_emissive > 0.5) {
        c = base;
    } else {
        float sun = max(dot(n, u_sun_dir), 0.0);
        if (u_shadow_on > 0.5 && sun > 0.0) {
            vec3 p = (u_shadow_mat * vec4(v_world, 1.0)).xyz;
            if (p.x > 0.0 && p.y > 0.0 && p.x < 1.0 && p.y < 1.0 && p.z < 1.0)
                sun *= texture(u_shadow, vec3(p.xy, p.z - 0.002));
        }
        vec3 light = u_ambient + u_sun_color * sun;
        if (u_head_on > 0.5) {
            vec3 l = v_world - u_head_pos;
            float d = max(length(l), 0.01);
            float spot = smoothstep(0.90, 0.985, dot(l / d, u_head_dir));
            // road paint carries glass beads: it returns the beam towards the driver
            // about three times as strongly as a diffuse surface would
            float retro = u_material == 2 ? 3.0 : 1.0;
            light += vec3(1.0, 0.95, 0.82) * spot * retro * 2.2 / (1.0 + d * d / 1600.0)
                     * max(dot(n, -l / d), 0.25);
        }
        // street lights: each head (8 m up) shines downwards, a pool under it,
        // falling off with distance squared
#ifdef RN_STREET_LIGHTS
        for (int i = 0; i < u_n_lamps; i++) {
            vec3 l = u_lamps[i] - v_world;
            float d2 = dot(l, l), inv = inversesqrt(d2);
            float cone = smoothstep(0.3, 0.8, l.z * inv);
            light += vec3(1.0, 0.85, 0.6) * 1.4 * u_lamp_gain * cone * max(dot(n, l * inv), 0.0) / (1.0 + d2 / 80.0);
        }
#endif
        c = base * light;
        if (u_wet > 0.0 && (u_material == 1 || u_material == 2)) {
            // water fills the texture: darker, and a mirror at grazing angles
            vec3 v = normalize(u_eye - v_world);
            float fres = pow(1.0 - max(dot(n, v), 0.0), 5.0);
            c *= 1.0 - 0.45 * u_wet;
            c = mix(c, u_fog_color, u_wet * (0.1 + 0.5 * fres));
            vec3 h = normalize(u_sun_dir + v);
            c += u_wet * u_sun_color * pow(max(dot(n, h), 0.0), 80.0);
        }
    }
    float f = exp(-u_fog_k * length(v_world - u_eye));
    o_color = vec4(mix(u_fog_color, c, f), 1.0);
}
