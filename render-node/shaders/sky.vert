#version 330 core
// One triangle covering the screen, at the far plane.
out vec2 v_ndc;
void main()
{
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    v_ndc = p;
    gl_Position = vec4(p, 0.99999, 1.0);
}
