// Vehicles from models drawn instanced (render-node/models.c): one draw per model for
// all its vehicles, and one more for their lamps that are lit. Compiled after
// light.glsl: at the low preset (u_vertex_light 1) the vertex is lit here and flat.frag
// only fogs it; otherwise lit.frag lights the fragments.
//
// Per vertex, a_part: 0 fixed parts, 1 brake and tail lamps, 2 headlamps, 3 and 4 the
// left and right indicators, 5 paint, 6 bonnet (models.h's groups), 16 + i wheel i
// (its vertices in the wheel's own frame, around u_wheels[i].xyz).
// Per vehicle: the model matrix's rows (rotation times scale, translation in w), the
// paint (w 1: it replaces the paint's colour), the cosine and sine of the wheels' roll
// angle and of the front wheels' steer (worked out once per vehicle), the lamps (x: 0 off, 1 tail, 2 brake; y head, z left, w right).
in vec3 a_pos;
in vec3 a_normal;
in vec3 a_color;
in float a_part;
in vec4 a_car_m0;
in vec4 a_car_m1;
in vec4 a_car_m2;
in vec4 a_car_paint;
in vec4 a_car_wheel;   // cos, sin of the roll angle; cos, sin of the steer
in vec4 a_car_lamps;
uniform mat4 u_view_proj;
uniform vec4 u_wheels[16];      // pivot, model frame; w 1 when the wheel steers
uniform float u_bonnet_painted; // 1: the bonnet takes the paint's colour too
uniform float u_lamp_pass;      // 0: all but the lit lamps; 1: only those (u_emissive 1)
uniform float u_vertex_light;   // 1 at the low preset
out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
out float v_fog;

const vec3 RED_ON = vec3(1.0, 0.08, 0.05);
const vec3 TAIL = vec3(0.55, 0.03, 0.02);
const vec3 AMBER_ON = vec3(1.0, 0.6, 0.0);
const vec3 HEAD_ON = vec3(1.0, 1.0, 0.92);

void main()
{
    int part = int(a_part + 0.5);
    vec3 p = a_pos, n = a_normal, c = a_color;
    if (part >= 16) {
        // T(pivot) Rz(steer) Ry(angle): rolling forward turns the top forward
        vec4 w = u_wheels[part - 16];
        float ca = a_car_wheel.x, sa = a_car_wheel.y;
        float cs = w.w > 0.5 ? a_car_wheel.z : 1.0, ss = w.w > 0.5 ? a_car_wheel.w : 0.0;
        mat3 r = mat3(cs * ca, ss * ca, -sa, -ss, cs, 0.0, cs * sa, ss * sa, ca);
        p = w.xyz + r * p;
        n = r * n;
    }
    bool lit = false;
    if (part == 1 && a_car_lamps.x > 0.5) {
        lit = true;
        c = a_car_lamps.x > 1.5 ? RED_ON : TAIL;
    } else if (part == 2 && a_car_lamps.y > 0.5) {
        lit = true;
        c = HEAD_ON;
    } else if ((part == 3 && a_car_lamps.z > 0.5) || (part == 4 && a_car_lamps.w > 0.5)) {
        lit = true;
        c = AMBER_ON;
    } else if (a_car_paint.w > 0.5 && (part == 5 || (part == 6 && u_bonnet_painted > 0.5))) {
        c = a_car_paint.rgb;
    }
    v_world = vec3(0.0);
    v_normal = vec3(0.0, 0.0, 1.0);
    v_color = c;
    v_fog = 1.0;
    if (lit != (u_lamp_pass > 0.5)) {
        // drawn in the other pass: every vertex of the triangle lands on one point
        // outside the view, so nothing is rasterised
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec4 q = vec4(p, 1.0);
    v_world = vec3(dot(a_car_m0, q), dot(a_car_m1, q), dot(a_car_m2, q));
    v_normal = normalize(vec3(dot(a_car_m0.xyz, n), dot(a_car_m1.xyz, n), dot(a_car_m2.xyz, n)));
    if (u_vertex_light > 0.5) {
        // lit.frag lights both sides (gl_FrontFacing); per vertex, the side towards the
        // eye: some model faces are wound and lit inwards (a truck's back would be dark)
        vec3 ln = dot(v_normal, u_eye - v_world) < 0.0 ? -v_normal : v_normal;
        v_color = shade(v_world, ln, c);
        v_fog = fog(v_world);
    }
    gl_Position = u_view_proj * vec4(v_world, 1.0);
}
