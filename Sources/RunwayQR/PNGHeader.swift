extension PNGDecoder {
    /// IHDR: the picture's size and how its samples are laid out.
    struct Header {
        let width: Int, height: Int, bitDepth: Int, colorType: Int

        init(_ body: [UInt8], maxSide: Int) throws(Failure) {
            guard body.count == 13 else { throw Failure("its IHDR is not 13 bytes") }
            width = Int(be32(body, 0))
            height = Int(be32(body, 4))
            bitDepth = Int(body[8])
            colorType = Int(body[9])
            guard width > 0, height > 0, width <= maxSide, height <= maxSide else {
                throw Failure("it is \(width)×\(height) pixels; at most \(maxSide)×\(maxSide) is accepted")
            }
            let depths: [Int: Set<Int>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
            guard depths[colorType]?.contains(bitDepth) == true else { throw Failure("colour type \(colorType) at bit depth \(bitDepth) is not a PNG layout") }
            guard body[10] == 0, body[11] == 0 else { throw Failure("it uses an unknown compression or filter method") }
            guard body[12] == 0 else { throw Failure("it is interlaced; save it without interlacing") }
        }

        var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }
        var bitsPerPixel: Int { channels * bitDepth }
        var rowBytes: Int { (width * bitsPerPixel + 7) / 8 }
        /// The distance in bytes to the pixel on the left, as the filters count it.
        var filterStep: Int { max(1, bitsPerPixel / 8) }

        /// The `index`th sample of a row starting at `row`, at its own depth.
        func sample(_ samples: [UInt8], row: Int, index: Int) -> Int {
            switch bitDepth {
            case 8: return Int(samples[row + index])
            case 16: return Int(samples[row + 2 * index]) << 8 | Int(samples[row + 2 * index + 1])
            default:
                let bit = index * bitDepth
                let byte = Int(samples[row + bit / 8])
                return (byte >> (8 - bitDepth - bit % 8)) & ((1 << bitDepth) - 1)
            }
        }

        /// A sample scaled to 8 bits.
        func eight(_ value: Int) -> UInt8 {
            bitDepth == 16 ? UInt8(value >> 8) : UInt8(value * 255 / ((1 << bitDepth) - 1))
        }

        /// The samples as RGBA, with the palette and the transparency chunk applied.
        func rgba(_ samples: [UInt8], palette: [UInt8], transparency: [UInt8]) throws(Failure) -> RGBAImage {
            if colorType == 6, bitDepth == 8 { return RGBAImage(width: width, height: height, pixels: samples) }
            if colorType == 3, palette.isEmpty || palette.count % 3 != 0 { throw Failure("it has no usable palette") }
            let key = transparency.count >= 2 ? stride(from: 0, to: transparency.count - 1, by: 2).map {
                Int(transparency[$0]) << 8 | Int(transparency[$0 + 1])
            } : []
            var out = [UInt8]()
            out.reserveCapacity(width * height * 4)
            for y in 0..<height {
                let row = y * rowBytes
                for x in 0..<width {
                    let s = (0..<channels).map { sample(samples, row: row, index: x * channels + $0) }
                    switch colorType {
                    case 0:
                        let alpha: UInt8 = key.count == 1 && key[0] == s[0] ? 0 : 255
                        out += [eight(s[0]), eight(s[0]), eight(s[0]), alpha]
                    case 2:
                        let alpha: UInt8 = key.count == 3 && key == s ? 0 : 255
                        out += [eight(s[0]), eight(s[1]), eight(s[2]), alpha]
                    case 3:
                        let index = s[0]
                        guard index * 3 + 2 < palette.count else { throw Failure("a pixel names a colour past the palette's end") }
                        let alpha = index < transparency.count ? transparency[index] : 255
                        out += [palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2], alpha]
                    case 4: out += [eight(s[0]), eight(s[0]), eight(s[0]), eight(s[1])]
                    default: out += [eight(s[0]), eight(s[1]), eight(s[2]), eight(s[3])]
                    }
                }
            }
            return RGBAImage(width: width, height: height, pixels: out)
        }
    }
}
