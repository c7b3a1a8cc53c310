import RunwayCrypto
import Testing

@Suite("SHA-256")
struct DigestTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// FIPS 180-2's examples, the empty message, and inputs that are not contiguous arrays.
    @Test("answers FIPS 180-2's examples, for arrays, slices and strings alike")
    func knownAnswers() {
        let cases = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        for (message, digest) in cases {
            #expect(Self.hex(Digest.sha256(message)) == digest)
            #expect(Self.hex(Digest.sha256(Array(message.utf8)[...])) == digest)
            #expect(Self.hex(Digest.sha256(message.utf8)) == digest)
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(Digest.sha256(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
