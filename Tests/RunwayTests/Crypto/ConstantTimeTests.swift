import RunwayCrypto
import Testing

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test("equal only when every byte is: a difference at the first, a middle or the last byte, or in length, is unequal")
    func everyByteCounts() {
        let secret = (0..<32).map { UInt8($0 * 7 % 251) }
        #expect(ConstantTime.equal(secret, secret))
        #expect(ConstantTime.equal([], []))
        for position in [0, 1, 15, 30, 31] {
            var changed = secret
            changed[position] ^= 0x01
            #expect(!ConstantTime.equal(secret, changed), "a difference at byte \(position)")
            #expect(!ConstantTime.equal(changed, secret), "a difference at byte \(position), the other way round")
        }
        #expect(!ConstantTime.equal(secret, Array(secret.dropLast())), "a prefix")
        #expect(!ConstantTime.equal(Array(secret.dropLast()), secret), "longer than the other")
        #expect(!ConstantTime.equal(secret, []))
        #expect(!ConstantTime.equal([], secret))
    }
}
