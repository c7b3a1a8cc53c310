import COpenSSL

/// Comparisons whose duration does not depend on where the inputs differ.
public enum ConstantTime {
    /// True when both byte strings are equal; lengths are not secret.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in lr_constant_time_equal(pa.baseAddress, pb.baseAddress, a.count) != 0 }
        }
    }
}
