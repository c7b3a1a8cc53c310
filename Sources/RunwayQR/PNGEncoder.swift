import CZlib

/// A PNG writer for our own pictures: 8-bit palette or RGB rows, deflated by zlib in one IDAT.
enum PNGEncoder {
    /// Rows of palette indices (each row without its filter byte) with a palette of at most 256 colours.
    static func indexed(width: Int, height: Int, palette: [QRColor], indices: [UInt8]) -> [UInt8] {
        let plte = palette.flatMap { [$0.red, $0.green, $0.blue] }
        return image(width: width, height: height, colorType: 3, bytesPerPixel: 1, pixels: indices, extra: [("PLTE", plte)])
    }

    /// Rows of RGB triples (each row without its filter byte).
    static func rgb(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        image(width: width, height: height, colorType: 2, bytesPerPixel: 3, pixels: pixels, extra: [])
    }

    /// Rows of RGBA quadruples (each row without its filter byte).
    static func rgba(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        image(width: width, height: height, colorType: 6, bytesPerPixel: 4, pixels: pixels, extra: [])
    }

    private static func image(width: Int, height: Int, colorType: UInt8, bytesPerPixel: Int, pixels: [UInt8],
                              extra: [(String, [UInt8])]) -> [UInt8] {
        let rowBytes = width * bytesPerPixel
        var rows = [UInt8]()
        rows.reserveCapacity((rowBytes + 1) * height)
        for y in 0..<height {
            rows.append(0)  // filter: none
            // trap-safe: the renderers pass width × height pixels of their own making
            rows += pixels[(y * rowBytes)..<((y + 1) * rowBytes)]
        }
        var header = be32(UInt32(width)) + be32(UInt32(height))
        header += [8, colorType, 0, 0, 0]  // 8-bit samples, deflate, adaptive filtering, no interlace
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
        for (type, data) in extra { out += chunk(type, data) }
        return out + chunk("IDAT", deflate(rows)) + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    /// A zlib stream of `data` at zlib's default level.
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { target in
            data.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count), Z_DEFAULT_COMPRESSION)
            }
        }
        precondition(status == Z_OK, "zlib could not deflate \(data.count) bytes into its own bound")
        return Array(out.prefix(Int(length)))
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        UInt32(data.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
}
