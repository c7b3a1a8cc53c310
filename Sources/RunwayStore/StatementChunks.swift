/// Splits a count of rows (or values) into runs of 64, 32, … 1, largest first, so statements over any number of them
/// use at most seven texts, each made and prepared once.
public enum StatementChunks {
    /// The longest run: the most rows one multi-row statement inserts.
    public static let largest = 64

    /// The runs' ranges over `0..<count`, in order, none longer than `largest`.
    public static func ranges(count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        var size = largest
        while start < count {
            while size > count - start { size /= 2 }
            ranges.append(start..<(start + size))
            start += size
        }
        return ranges
    }
}
