import CZlib

/// Pixels as 8-bit RGBA rows, top to bottom.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]
}

/// Reads a PNG someone uploaded, within bounds: every chunk's CRC checked, IHDR first, the image data inflated into a
/// buffer of exactly the size the header implies (so a small file cannot expand without limit), non-interlaced only.
enum PNGDecoder {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes `data` into RGBA, refusing a picture wider or taller than `maxSide` pixels.
    static func decode(_ data: [UInt8], maxSide: Int) throws(Failure) -> RGBAImage {
        guard data.count > 8, Array(data.prefix(8)) == signature else { throw Failure("it is not a PNG file") }
        var header: Header?
        var palette: [UInt8] = [], transparency: [UInt8] = [], compressed: [UInt8] = []
        var offset = 8
        var ended = false
        while !ended {
            guard offset + 12 <= data.count else { throw Failure("the file ends inside a chunk") }
            let length = Int(be32(data, offset))
            guard length <= data.count - offset - 12 else { throw Failure("a chunk runs past the end of the file") }
            // trap-safe: length <= data.count - offset - 12, checked above
            let typed = Array(data[(offset + 4)..<(offset + 8 + length)])
            guard be32(data, offset + 8 + length) == PNGEncoder.crc32(typed) else { throw Failure("a chunk's CRC is wrong") }
            let type = String(decoding: typed.prefix(4), as: UTF8.self)
            let body = Array(typed.dropFirst(4))
            offset += 12 + length
            if header == nil, type != "IHDR" { throw Failure("the first chunk is not IHDR") }
            switch type {
            case "IHDR": header = try Header(body, maxSide: maxSide)
            case "PLTE": palette = body
            case "tRNS": transparency = body
            case "IDAT": compressed += body
            case "IEND": ended = true
            default:
                // Ancillary chunks (lowercase first letter) are ignored; an unknown critical one cannot be.
                guard let first = typed.first, first & 0x20 != 0 else { throw Failure("it has a critical chunk \(type) this reader does not know") }
            }
        }
        guard let header else { throw Failure("it has no IHDR") }
        let rows = try inflate(compressed, expected: header.height * (header.rowBytes + 1))
        let samples = try unfilter(rows, header)
        return try header.rgba(samples, palette: palette, transparency: transparency)
    }

    static func be32(_ data: [UInt8], _ at: Int) -> UInt32 {
        UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
    }

    /// Inflates into exactly `expected` bytes; more or fewer is a broken file.
    static func inflate(_ compressed: [UInt8], expected: Int) throws(Failure) -> [UInt8] {
        guard !compressed.isEmpty else { throw Failure("it has no image data") }
        var out = [UInt8](repeating: 0, count: expected + 1)
        var length = uLong(out.count)
        let status = out.withUnsafeMutableBufferPointer { target in
            compressed.withUnsafeBufferPointer { source in
                uncompress(target.baseAddress, &length, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK, Int(length) == expected else { throw Failure("its image data does not inflate to the size its header gives") }
        return Array(out.prefix(expected))
    }

    /// Undoes the per-row filters (none, sub, up, average, Paeth).
    static func unfilter(_ rows: [UInt8], _ header: Header) throws(Failure) -> [UInt8] {
        let stride = header.rowBytes, step = header.filterStep
        var out = [UInt8](repeating: 0, count: stride * header.height)
        for y in 0..<header.height {
            let filter = rows[y * (stride + 1)]
            let input = y * (stride + 1) + 1, row = y * stride, previous = row - stride
            for x in 0..<stride {
                let raw = rows[input + x]
                let left = x >= step ? Int(out[row + x - step]) : 0
                let up = y > 0 ? Int(out[previous + x]) : 0
                let upLeft = y > 0 && x >= step ? Int(out[previous + x - step]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4: predictor = paeth(left, up, upLeft)
                default: throw Failure("a row has the unknown filter \(filter)")
                }
                out[row + x] = raw &+ UInt8(predictor & 0xff)
            }
        }
        return out
    }

    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
        return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
    }
}
