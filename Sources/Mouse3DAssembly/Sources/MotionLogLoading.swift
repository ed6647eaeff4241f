import Mouse3DCore
import Mouse3DLinux

/// Reads and parses a motion log, turning every failure into a one-line message and exit status 1.
public func loadMotionLog(path: String) throws -> MotionLog {
    do {
        var parser = MotionLogParser(file: path)
        try FileContents.forEachChunk(path: path) { try parser.consume($0) }
        return try parser.finish()
    } catch let error as SystemCallError {
        throw ActionableError("cannot read the motion log: \(error)")
    } catch let error as MotionLogError {
        throw ActionableError("bad motion log: \(error)")
    }
}

/// Opens a motion log to be played as it is read (checked through first), turning every failure into
/// a one-line message and exit status 1.
public func openMotionLog(path: String) throws -> MotionLogFile {
    do {
        return try MotionLogFile(path: path)
    } catch let error as SystemCallError {
        throw ActionableError("cannot read the motion log: \(error)")
    } catch let error as MotionLogError {
        throw ActionableError("bad motion log: \(error)")
    }
}
