/// Why a motion log could not be read, with where.
public struct MotionLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The file has no header line.
        case empty
        /// The header lacks required columns.
        case missingColumns([String])
        /// The header names a column twice.
        case duplicateColumn(String)
        /// A row has fewer cells than the header.
        case missingCell(column: String)
        /// A cell is not a number.
        case notANumber(column: String, text: String)
        /// A required cell is NaN or infinite.
        case notFinite(column: String, text: String)
        /// The time went backwards.
        case timeWentBackwards(previousSeconds: Double, seconds: Double)
        /// The header has no data rows after it.
        case noSamples
    }

    /// The file (as the user named it).
    public var file: String
    /// The 1-based line, when the problem is on one.
    public var line: Int?
    /// What went wrong.
    public var reason: Reason

    /// Creates an error.
    public init(file: String, line: Int?, reason: Reason) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        let required = MotionLog.requiredColumns.joined(separator: ",")
        switch reason {
        case .empty:
            return "\(place): the file is empty; a motion log starts with a header line such as '\(required)'"
        case .missingColumns(let names):
            return "\(place): the header lacks column\(names.count == 1 ? "" : "s") "
                + "\(names.map { "'\($0)'" }.joined(separator: ", ")); required are \(required), in any order"
        case .duplicateColumn(let name):
            return "\(place): the header names column '\(name)' twice; keep one"
        case .missingCell(let column):
            return
                "\(place): column '\(column)': the row ends before this column; every row needs a cell per header column"
        case .notANumber(let column, let text):
            return "\(place): column '\(column)': '\(text)' is not a number"
        case .notFinite(let column, let text):
            return
                "\(place): column '\(column)': '\(text)' is not a finite number; required columns must hold finite values"
        case .timeWentBackwards(let previous, let now):
            return
                "\(place): column 't': time goes backwards (\(now) s after \(previous) s); rows must be in time order"
        case .noSamples:
            return "\(place): the log has a header but no samples"
        }
    }
}
