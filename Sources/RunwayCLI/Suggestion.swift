/// "Did you mean": the closest of some known words to what was typed, when it is close enough to be a typo.
enum Suggestion {
    /// The candidate nearest `typed` by edit distance, if it is at most a third of the word away (and at least one).
    static func closest(to typed: String, among candidates: [String]) -> String? {
        let limit = max(1, typed.count / 3)
        let scored = candidates.map { ($0, distance(typed, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    /// Levenshtein distance: the fewest insertions, deletions and substitutions that turn `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
