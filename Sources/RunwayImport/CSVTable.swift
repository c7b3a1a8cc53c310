import Foundation

/// A CSV file read as RFC 4180 describes it: fields separated by commas, quoted with `"` when they hold commas,
/// quotes (doubled) or line ends; lines end with LF or CRLF. A leading byte-order mark is dropped, and blank lines are
/// skipped. The first record is the header.
public struct CSVTable: Sendable, Equatable {
    /// One record and the line of the file it starts on (the header is line 1).
    public struct Record: Sendable, Equatable {
        public var line: Int
        public var cells: [String]
    }

    public var header: [String]
    public var records: [Record]

    /// Reads `text`; a quote left open is an error that names its line.
    public init(_ text: String) throws(ImportFileError) {
        var records: [Record] = []
        var cells: [String] = []
        var cell = ""
        var quoted = false, wasQuoted = false
        var line = 1, recordLine = 1
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        func endRecord() {
            cells.append(cell)
            if !(cells.count == 1 && cells[0].isEmpty && !wasQuoted) { records.append(Record(line: recordLine, cells: cells)) }
            cells = []
            cell = ""
            wasQuoted = false
        }
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            if quoted {
                if scalar == "\"" {
                    if index < scalars.endIndex, scalars[index] == "\"" {
                        cell.unicodeScalars.append("\"")
                        index = scalars.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where cell.isEmpty:
                quoted = true
                wasQuoted = true
            case ",":
                cells.append(cell)
                cell = ""
            case "\r" where index < scalars.endIndex && scalars[index] == "\n":
                break
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                cell.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw ImportFileError("a quoted field that starts on line \(recordLine) is never closed") }
        if !cell.isEmpty || !cells.isEmpty || wasQuoted { endRecord() }
        guard let first = records.first else { throw ImportFileError("the file is empty; its first line must name the columns") }
        header = first.cells.map { $0.trimmingCharacters(in: .whitespaces) }
        self.records = Array(records.dropFirst())
    }

    /// The record's cells by column name; cells past the header are refused, missing ones are empty.
    public func fields(_ record: Record) throws(ImportFileError) -> [String: String] {
        guard record.cells.count <= header.count else {
            throw ImportFileError("line \(record.line) has \(record.cells.count) fields but the header names \(header.count) columns")
        }
        var fields: [String: String] = [:]
        for (column, value) in zip(header, record.cells) {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { fields[column] = trimmed }
        }
        return fields
    }
}

/// A file that cannot be read as the format it was given as; nothing of it is imported.
public struct ImportFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
