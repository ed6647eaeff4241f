/// Reads the CSV motion log format described at ``MotionLog``.
public enum MotionLogParser {
    /// Parses a whole log from its bytes. `file` is used in error messages only.
    public static func parse(_ bytes: some Collection<UInt8>, file: String) throws(MotionLogError) -> MotionLog {
        let text = String(decoding: bytes, as: UTF8.self)
        return try parse(text: text, file: file)
    }

    /// Parses a whole log from text. `file` is used in error messages only.
    public static func parse(text: String, file: String) throws(MotionLogError) -> MotionLog {
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).makeIterator()
        var lineNumber = 0

        // Header: the first line that is not blank.
        var headerCells: [String] = []
        while let raw = lines.next() {
            lineNumber += 1
            let line = trimmed(raw)
            if line.isEmpty { continue }
            headerCells = line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
                .map { String(decoding: trimmed($0), as: UTF8.self).lowercased() }
            break
        }
        guard !headerCells.isEmpty else { throw MotionLogError(file: file, line: nil, reason: .empty) }
        let header = try Header(cells: headerCells, file: file, line: lineNumber)

        var samples: [MotionSample] = []
        var truth: [Quaternion] = []
        var movement: [Bool] = []
        var previousSeconds = -Double.infinity
        var cells: [Substring.UTF8View] = []
        cells.reserveCapacity(headerCells.count)
        while let raw = lines.next() {
            lineNumber += 1
            let line = trimmed(raw)
            if line.isEmpty { continue }
            cells.removeAll(keepingCapacity: true)
            cells.append(contentsOf: line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false))
            func cell(_ index: Int, finite: Bool) throws(MotionLogError) -> Double {
                let name = headerCells[index]
                guard index < cells.count else {
                    throw MotionLogError(file: file, line: lineNumber, reason: .missingCell(column: name))
                }
                let text = trimmed(cells[index])
                guard let value = Double(Substring(text)) else {
                    throw MotionLogError(
                        file: file, line: lineNumber,
                        reason: .notANumber(column: name, text: String(Substring(text))))
                }
                if finite && !value.isFinite {
                    throw MotionLogError(
                        file: file, line: lineNumber, reason: .notFinite(column: name, text: String(Substring(text))))
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
                    timestampNanoseconds: nanoseconds(fromSeconds: seconds),
                    angularVelocityRadiansPerSecond: gyro, specificForceMetersPerSecondSquared: accel))
            if let q = header.truth {
                truth.append(
                    Quaternion(
                        w: try cell(q[0], finite: false), x: try cell(q[1], finite: false),
                        y: try cell(q[2], finite: false), z: try cell(q[3], finite: false)))
            }
            if let m = header.movement {
                movement.append(try cell(m, finite: false) == 1)
            }
        }
        guard !samples.isEmpty else { throw MotionLogError(file: file, line: nil, reason: .noSamples) }
        return MotionLog(
            samples: samples, truth: header.truth == nil ? nil : truth,
            movement: header.movement == nil ? nil : movement)
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

        init(cells: [String], file: String, line: Int) throws(MotionLogError) {
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

    static func trimmed(_ s: Substring.UTF8View) -> Substring.UTF8View {
        var s = s
        while let last = s.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            s = s.dropLast()
        }
        while let first = s.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { s = s.dropFirst() }
        return s
    }
}
