"""xvfb_screen: what an Xvfb screen shows, read from its -fbdir file (an XWD image), for
the shell tests: the share of pixels in the study screen's calm colour, of bright
(text) pixels and of black ones; optionally the screen as a PNG (the docs' pictures).

    python3 xvfb_screen.py FBDIR/Xvfb_screen0 [OUT.png]
prints: calm=0.93 bright=0.02 black=0.00 corner=26,36,51
"""
import struct, sys, zlib

CALM = (26, 36, 51)  # render-node's study page: 0.10, 0.14, 0.20 (hud.c, redraw_page)


def read(path):
    """width, height, pixel(x, y) -> (r, g, b), rows() -> RGB rows (for the PNG)"""
    d = open(path, 'rb').read()
    f = struct.unpack('>25I', d[:100])
    header, w, h, order, bpp, stride, ncolors = f[0], f[4], f[5], f[7], f[11], f[12], f[19]
    assert bpp == 32 and order == 0, 'expected 32-bit LSB pixels (Xvfb -screen 0 WxHx24)'
    off = header + 12 * ncolors

    def pixel(x, y):
        i = off + y * stride + 4 * x
        return d[i + 2], d[i + 1], d[i]

    def rows():
        for y in range(h):
            line = d[off + y * stride:off + y * stride + 4 * w]
            out = bytearray(3 * w)
            out[0::3], out[1::3], out[2::3] = line[2::4], line[1::4], line[0::4]
            yield bytes(out)
    return w, h, pixel, rows


def png(path, w, h, rows):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
    raw = b''.join(b'\0' + r for r in rows)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                           chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


w, h, pixel, rows = read(sys.argv[1])
calm = bright = black = n = 0
for y in range(0, h, 4):
    for x in range(0, w, 4):
        p = pixel(x, y)
        n += 1
        calm += all(abs(p[i] - CALM[i]) <= 3 for i in range(3))
        bright += min(p) > 150
        black += max(p) < 8
c = pixel(2, 2)
print('calm=%.2f bright=%.3f black=%.2f corner=%d,%d,%d' % (calm / n, bright / n, black / n, c[0], c[1], c[2]))
if len(sys.argv) > 2:
    png(sys.argv[2], w, h, list(rows()))
