/// SVG and PNG pictures of a QR code, with a quiet zone of `margin` modules, scaled to about `pixels` per side.
extension QRCode {
    /// Whole pixels per module so that the picture is at most `pixels` wide (at least 1).
    public func scale(pixels: Int, margin: Int) -> Int { max(1, pixels / (size + 2 * margin)) }

    /// A scalable picture: one path of unit squares in a viewBox of modules.
    public func svg(pixels: Int, margin: Int) -> String {
        let side = size + 2 * margin
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                var run = 1
                while x + run < size, isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + margin) \(y + margin)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    /// An 8-bit greyscale PNG.
    public func png(pixels: Int, margin: Int) -> [UInt8] {
        let scale = self.scale(pixels: pixels, margin: margin)
        let side = (size + 2 * margin) * scale
        var raw = [UInt8]()
        raw.reserveCapacity((side + 1) * side)
        for py in 0..<side {
            raw.append(0)  // filter: none
            let y = py / scale - margin
            for px in 0..<side {
                let x = px / scale - margin
                let dark = x >= 0 && y >= 0 && x < size && y < size && isDark(x: x, y: y)
                raw.append(dark ? 0 : 255)
            }
        }
        return PNGEncoder.greyscale(width: side, height: side, rows: raw)
    }
}

/// The smallest PNG writer that does the job: one IDAT of stored (uncompressed) deflate blocks.
enum PNGEncoder {
    static func greyscale(width: Int, height: Int, rows: [UInt8]) -> [UInt8] {
        var header = [UInt8]()
        header += be32(UInt32(width)) + be32(UInt32(height))
        header += [8, 0, 0, 0, 0]  // 8-bit depth, greyscale, deflate, adaptive filtering, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlibStored(rows)) + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    /// A zlib stream of stored blocks (at most 65,535 bytes each) and its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count >= data.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        return out + be32(adler32(data))
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }

    static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        ~data.reduce(UInt32.max) { crc, byte in crcTable[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
