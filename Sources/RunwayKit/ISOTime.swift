/// RFC 3339 times (`2026-11-30T05:19:19Z`, `…19.123+01:00`) to milliseconds since 1970, without a formatter: events
/// parse one per event, and Foundation's formatters are costly to make and not safe to share.
package enum ISOTime {
    /// A calendar day (`2026-11-30`), in UTC: the milliseconds at its start, or nil when `text` is not one.
    package static func dayStart(_ text: String) -> Int64? {
        guard text.utf8.count == 10 else { return nil }
        return milliseconds(text + "T00:00:00Z")
    }

    package static func milliseconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<(start + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == 0x2D, let month = digits(5, 2), b[7] == 0x2D, let day = digits(8, 2),
              b[10] == 0x54 || b[10] == 0x74 || b[10] == 0x20, let hour = digits(11, 2), b[13] == 0x3A, let minute = digits(14, 2),
              b[16] == 0x3A, let second = digits(17, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var scale = 100
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                fraction += Int(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetMinutes = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D, let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A, let om = digits(i + 4, 2),
                  oh < 24, om < 60 {
            offsetMinutes = (oh * 60 + om) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(fraction)
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
