/// Reads the CSV motion log format described at ``MotionLog``, whole or in chunks of any size.
///
/// Feed it bytes with ``consume(_:)`` as they are read and call ``finish()`` at the end: only the
/// samples and one partial line are kept, never the whole file.
public struct MotionLogParser {
    /// The file name used in error messages.
    public let file: String
    private var lineNumber = 0
    private var headerCells: [String] = []
    private var header: Header?
    private var samples: [MotionSample] = []
    private var truth: [Quaternion] = []
    private var movement: [Bool] = []
    private var previousSeconds = -Double.infinity
    private var row: [Range<Int>] = []
    private var partialLine: [UInt8] = []

    /// Whether the truth and movement columns are read (a replay plays the samples alone).
    public let readsTruth: Bool

    /// A parser for the log named `file` (for messages); `readsTruth: false` skips the truth and
    /// movement columns (a log checked once already, read again to be played).
    public init(file: String, readsTruth: Bool = true) {
        self.file = file
        self.readsTruth = readsTruth
    }

    /// Parses a whole log from its bytes (UTF-8). `file` is used in error messages only.
    public static func parse(_ bytes: [UInt8], file: String) throws(MotionLogError) -> MotionLog {
        var parser = MotionLogParser(file: file)
        try parser.consume(bytes)
        return try parser.finish()
    }

    /// Parses a whole log from text. `file` is used in error messages only.
    public static func parse(text: String, file: String) throws(MotionLogError) -> MotionLog {
        try parse(Array(text.utf8), file: file)
    }

    /// The samples parsed since the last call, handed over and forgotten (with any truth and
    /// movement columns): for playing a log as it is read, in memory bounded by a chunk.
    public mutating func takeSamples() -> [MotionSample] {
        truth.removeAll(keepingCapacity: true)
        movement.removeAll(keepingCapacity: true)
        defer { samples.removeAll(keepingCapacity: true) }
        return samples
    }

    /// After the last chunk of a log read with ``takeSamples()``: its last line's samples. Throws for
    /// a file without a header; whether it had any sample is the caller's count.
    public mutating func finishTaking() throws(MotionLogError) -> [MotionSample] {
        try parsePartialLine()
        guard header != nil else { throw MotionLogError(file: file, line: nil, reason: .empty) }
        return takeSamples()
    }

    /// Parses every complete line in `bytes` (plus a line left open by the previous chunk); keeps the
    /// unfinished last line for the next call.
    public mutating func consume(_ bytes: [UInt8]) throws(MotionLogError) {
        var failure: MotionLogError?
        bytes.withUnsafeBufferPointer { buffer in
            do throws(MotionLogError) { try consume(buffer: buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The frame the header says (``MotionLog/frame``), once the header has been read.
    public var frame: String? { header?.frame }

    /// The log, after the last chunk.
    public mutating func finish() throws(MotionLogError) -> MotionLog {
        try parsePartialLine()
        guard let header else { throw MotionLogError(file: file, line: nil, reason: .empty) }
        guard !samples.isEmpty else { throw MotionLogError(file: file, line: nil, reason: .noSamples) }
        return MotionLog(
            samples: samples, truth: header.truth == nil ? nil : truth,
            movement: header.movement == nil ? nil : movement, frame: header.frame)
    }

    private mutating func consume(buffer: UnsafeBufferPointer<UInt8>) throws(MotionLogError) {
        guard let lastNewline = buffer.lastIndex(of: UInt8(ascii: "\n")) else {
            partialLine.append(contentsOf: buffer)
            return
        }
        var lines = LineReader(UnsafeBufferPointer(rebasing: buffer[0..<lastNewline + 1]))
        if !partialLine.isEmpty, let first = lines.next() {
            // Finish the line the previous chunk left open.
            partialLine.append(contentsOf: buffer[first])
            try parsePartialLine()
        }
        while let line = lines.next() { try parseLine(line, in: buffer) }
        partialLine.append(contentsOf: buffer[(lastNewline + 1)...])
    }

    /// Parses the line carried over between chunks (if any) and clears it.
    private mutating func parsePartialLine() throws(MotionLogError) {
        guard !partialLine.isEmpty else { return }
        let line = partialLine
        partialLine = []
        var failure: MotionLogError?
        line.withUnsafeBufferPointer { buffer in
            do throws(MotionLogError) { try parseLine(0..<buffer.count, in: buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// One line: the header if none was seen yet, else a sample row.
    private mutating func parseLine(_ line: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>) throws(MotionLogError) {
        lineNumber += 1
        if Self.trimmed(line, in: buffer).isEmpty { return }
        guard let header else {
            headerCells = Self.cells(of: line, in: buffer).map {
                String(decoding: buffer[Self.trimmed($0, in: buffer)], as: UTF8.self).lowercased()
            }
            header = try Header(cells: headerCells, file: file, line: lineNumber)
            return
        }
        row.removeAll(keepingCapacity: true)
        Self.appendCells(of: line, in: buffer, to: &row)
        let (file, lineNumber, headerCells, row) = (self.file, self.lineNumber, self.headerCells, self.row)
        func cell(_ index: Int, finite: Bool) throws(MotionLogError) -> Double {
            let name = headerCells[index]
            guard index < row.count else {
                throw MotionLogError(file: file, line: lineNumber, reason: .missingCell(column: name))
            }
            let bytes = buffer[Self.trimmed(row[index], in: buffer)]
            if let value = Self.plainDecimal(bytes) { return value }
            // Short cells become small (inline) strings: no allocation for typical numbers.
            let text = String(decoding: bytes, as: UTF8.self)
            guard let value = Double(text) else {
                throw MotionLogError(file: file, line: lineNumber, reason: .notANumber(column: name, text: text))
            }
            if finite && !value.isFinite {
                throw MotionLogError(file: file, line: lineNumber, reason: .notFinite(column: name, text: text))
            }
            return value
        }
        let r = header.required
        let seconds = try cell(r[0], finite: true)
        if seconds < previousSeconds {
            throw MotionLogError(
                file: file, line: lineNumber,
                reason: .timeWentBackwards(previousSeconds: previousSeconds, seconds: seconds))
        }
        previousSeconds = seconds
        let gyro = SIMD3(try cell(r[1], finite: true), try cell(r[2], finite: true), try cell(r[3], finite: true))
        let accel = SIMD3(try cell(r[4], finite: true), try cell(r[5], finite: true), try cell(r[6], finite: true))
        samples.append(
            MotionSample(
                timestampNanoseconds: Self.nanoseconds(fromSeconds: seconds),
                angularVelocityRadiansPerSecond: gyro, specificForceMetersPerSecondSquared: accel))
        if readsTruth, let q = header.truth {
            truth.append(
                Quaternion(
                    w: try cell(q[0], finite: false), x: try cell(q[1], finite: false),
                    y: try cell(q[2], finite: false), z: try cell(q[3], finite: false)))
        }
        if readsTruth, let m = header.movement {
            movement.append(try cell(m, finite: false) == 1)
        }
    }

    /// A cell of the form `[+-]digits[.digits]` with at most 15 significant digits, as the nearest
    /// double, or nil for anything else (exponents, more digits, `inf`, text), which `Double(_:)`
    /// reads. The integer of its digits and the power of ten it is divided by are both exact
    /// doubles, so one correctly rounded division gives what `Double(_:)` gives (Clinger's fast
    /// path), without making a String: a log's cells are parsed again on every pass of a replay.
    @inline(__always)
    static func plainDecimal(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var i = bytes.startIndex
        guard i < bytes.endIndex else { return nil }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative || bytes[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        var seenDigit = false
        while i < bytes.endIndex {
            let c = bytes[i]
            if c == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                seenDigit = true
                if mantissa != 0 || c != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 15 else { return nil }  // below 2^53: exact
                mantissa = mantissa * 10 + UInt64(c - UInt8(ascii: "0"))
                if seenPoint { fraction += 1 }
            } else {
                return nil
            }
            i += 1
        }
        // Powers of ten are exact doubles up to 10^22.
        guard seenDigit, fraction <= 22 else { return nil }
        let value = Double(mantissa) / Self.powersOfTen[fraction]
        return negative ? -value : value
    }

    static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    /// Yields the byte range of each line (without its `\n`).
    struct LineReader {
        let buffer: UnsafeBufferPointer<UInt8>
        var position = 0

        init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

        mutating func next() -> Range<Int>? {
            guard position < buffer.count else { return nil }
            let start = position
            while position < buffer.count && buffer[position] != UInt8(ascii: "\n") { position += 1 }
            let line = start..<position
            position += 1
            return line
        }
    }

    /// The comma-separated cells of `line`, as byte ranges.
    static func cells(of line: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        appendCells(of: line, in: buffer, to: &result)
        return result
    }

    /// Appends the comma-separated cells of `line` to `cells` (a row's array, reused line after line).
    static func appendCells(of line: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>, to cells: inout [Range<Int>]) {
        var start = line.lowerBound
        for i in line where buffer[i] == UInt8(ascii: ",") {
            cells.append(start..<i)
            start = i + 1
        }
        cells.append(start..<line.upperBound)
    }

    /// `range` without surrounding blanks and carriage returns.
    static func trimmed(_ range: Range<Int>, in buffer: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        func blank(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") }
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && blank(buffer[lower]) { lower += 1 }
        while upper > lower && blank(buffer[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Seconds to whole nanoseconds, rounded to nearest.
    public static func nanoseconds(fromSeconds seconds: Double) -> Int64 {
        Int64((seconds * 1e9).rounded())
    }

    /// Which cell holds what.
    struct Header {
        var required: [Int]
        var truth: [Int]?
        var movement: Int?
        var frame: String?

        init(cells: [String], file: String, line: Int) throws(MotionLogError) {
            frame = cells.first { $0.hasPrefix("frame:") }.map { String($0.dropFirst("frame:".count)) }
            var index: [String: Int] = [:]
            for (i, name) in cells.enumerated() where !name.isEmpty {
                if index[name] != nil {
                    throw MotionLogError(file: file, line: line, reason: .duplicateColumn(name))
                }
                index[name] = i
            }
            let missing = MotionLog.requiredColumns.filter { index[$0] == nil }
            guard missing.isEmpty else {
                throw MotionLogError(file: file, line: line, reason: .missingColumns(missing))
            }
            required = MotionLog.requiredColumns.map { index[$0]! }
            let truthIndices = MotionLog.truthColumns.compactMap { index[$0] }
            truth = truthIndices.count == 4 ? truthIndices : nil
            movement = index["movement"]
        }
    }

}
