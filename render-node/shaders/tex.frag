#version 330 core
// Premultiplied-alpha texture (cairo's), scaled by the light and fogged like the rest.
// Sign faces are retroreflective sheeting: light from the ego car's headlamps comes
// back towards the driver, who sits just behind them, so at night a face in the beam
// is far brighter than the road beside it (u_retro 1: signs; 0: the HUD).
in vec2 v_uv;
in vec3 v_world;
uniform sampler2D u_tex;
uniform float u_bright;
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_k;
uniform float u_retro;
uniform vec3 u_head_pos;
uniform vec3 u_head_dir;
uniform float u_head_on;
out vec4 o_color;
void main()
{
    vec4 t = texture(u_tex, v_uv);
    float bright = u_bright;
    if (u_retro * u_head_on > 0.5) {
        vec3 l = v_world - u_head_pos;
        float d = max(length(l), 0.01);
        // the beam's spread on the sheeting: wider than the road's pool, as signs
        // stand beside the road; the return falls off with distance squared
        float spot = smoothstep(0.82, 0.96, dot(l / d, u_head_dir));
        bright += spot * 2.5 / (1.0 + d * d / 22500.0);
    }
    float f = exp(-u_fog_k * length(v_world - u_eye));
    vec3 c = mix(u_fog_color * t.a, min(t.rgb * bright, vec3(t.a)), f);
    o_color = vec4(c, t.a);
}
