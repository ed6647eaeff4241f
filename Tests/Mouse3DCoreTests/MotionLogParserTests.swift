import Foundation
import Testing

@testable import Mouse3DCore

@Suite("Motion log format")
struct MotionLogParserTests {
    @Test("Columns in any order, extra columns ignored, CRLF and blank lines accepted")
    func anyOrder() throws {
        let text = "ax, t ,gz,note,gy,gx,ay,az\r\n1,0.5,3,hello,2,1.5,-1,9.8\r\n\r\n2,0.51,0,x,0,0,0,9.81\r\n"
        let log = try MotionLogParser.parse(text: text, file: "a.csv")
        #expect(log.samples.count == 2)
        #expect(log.samples[0].timestampNanoseconds == 500_000_000)
        #expect(log.samples[0].angularVelocityRadiansPerSecond == SIMD3(1.5, 2, 3))
        #expect(log.samples[0].specificForceMetersPerSecondSquared == SIMD3(1, -1, 9.8))
        #expect(log.samples[1].timestampNanoseconds == 510_000_000)
        #expect(log.truth == nil)
    }

    @Test("Truth and movement columns are read, nan allowed there")
    func truthColumns() throws {
        let text =
            "t,gx,gy,gz,ax,ay,az,qw,qx,qy,qz,movement\n0,0,0,0,0,0,9.8,1,0,0,0,0\n0.1,0,0,0,0,0,9.8,nan,nan,nan,nan,1\n"
        let log = try MotionLogParser.parse(text: text, file: "t.csv")
        #expect(log.truth?.count == 2)
        #expect(log.truth?[0] == .identity)
        #expect(log.truth?[1].isFinite == false)
        #expect(log.movement == [false, true])
    }

    static let errorCases: [(String, MotionLogError.Reason, Int?, String)] = [
        ("", .empty, nil, "a.csv: the file is empty"),
        ("\n\n", .empty, nil, "empty"),
        ("t,gx,gy,gz,ax,ay\n", .missingColumns(["az"]), 1, "a.csv:1: the header lacks column 'az'"),
        ("t,gx,gy,gz,ax,ay,az,t\n", .duplicateColumn("t"), 1, "names column 't' twice"),
        ("t,gx,gy,gz,ax,ay,az\n", .noSamples, nil, "no samples"),
        (
            "t,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0,9.8\n0.1,0,abc,0,0,0,9.8\n",
            .notANumber(column: "gy", text: "abc"), 3, "a.csv:3: column 'gy': 'abc' is not a number"
        ),
        ("t,gx,gy,gz,ax,ay,az\n0,0,0,0,nan,0,9.8\n", .notFinite(column: "ax", text: "nan"), 2, "column 'ax'"),
        ("t,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0,inf\n", .notFinite(column: "az", text: "inf"), 2, "not a finite number"),
        ("t,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0\n", .missingCell(column: "az"), 2, "row ends"),
        (
            "t,gx,gy,gz,ax,ay,az\n1,0,0,0,0,0,9.8\n0.5,0,0,0,0,0,9.8\n",
            .timeWentBackwards(previousSeconds: 1, seconds: 0.5), 3, "a.csv:3: column 't': time goes backwards"
        ),
        ("t,gx,gy,gz,ax,ay,az\n,0,0,0,0,0,9.8\n", .notANumber(column: "t", text: ""), 2, "'' is not a number")
    ]

    @Test("Bad logs name the file, line and column", arguments: errorCases)
    func errors(text: String, reason: MotionLogError.Reason, line: Int?, message: String) {
        #expect {
            try MotionLogParser.parse(text: text, file: "a.csv")
        } throws: { error in
            guard let error = error as? MotionLogError else { return false }
            return error.reason == reason && error.line == line && error.file == "a.csv"
                && error.description.contains(message)
        }
    }

    @Test("Writer and parser round-trip every bit")
    func roundTrip() throws {
        let points = noisy(
            SyntheticMotion(
                segments: [.init(seconds: 0.5, radiansPerSecond: SIMD3(1, 2, 3))],
                sampleRateHertz: 333)
        ).generate()
        let text =
            ([MotionLogWriter.header + ",qw,qx,qy,qz"] + points.map { MotionLogWriter.row($0.sample, truth: $0.truth) })
            .joined(separator: "\n")
        let log = try MotionLogParser.parse(text: text, file: "r.csv")
        #expect(log.samples == points.map(\.sample))
        #expect(log.truth == points.map(\.truth))
    }

    @Test("Parsing in chunks of any size gives the same log and the same error lines", arguments: [1, 2, 7, 64, 4096])
    func chunked(chunkSize: Int) throws {
        let good = Array("gx,gy,gz,ax,ay,az,t\r\n0,0,1,0,0,9.8,0\n\n0.5,0,1,0,0,9.8,0.01\n0,0,1,0,0,9.8,0.02".utf8)
        let bad = Array("t,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0,9.8\n\n0.1,0,x,0,0,0,9.8\n".utf8)
        func parseInChunks(_ bytes: [UInt8]) throws(MotionLogError) -> MotionLog {
            var parser = MotionLogParser(file: "c.csv")
            var start = 0
            while start < bytes.count {
                try parser.consume(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
                start += chunkSize
            }
            return try parser.finish()
        }
        #expect(try parseInChunks(good).samples == MotionLogParser.parse(good, file: "c.csv").samples)
        #expect(try parseInChunks(good).samples.count == 3)
        #expect { try parseInChunks(bad) } throws: { ($0 as? MotionLogError)?.line == 4 }
    }

    @Test(
        "Timestamps print as exact decimal seconds",
        arguments: [
            (Int64(0), "0.0"), (3_500_000, "0.0035"), (1_000_000_001, "1.000000001"), (-1_500_000_000, "-1.5")
        ])
    func secondsFormat(nanoseconds: Int64, text: String) {
        #expect(MotionLogWriter.formatSeconds(nanoseconds) == text)
    }

    @Test("The bundled sample log parses and carries truth")
    func bundledSample() throws {
        let url = try #require(
            Bundle.module.url(forResource: "sample-motion", withExtension: "csv", subdirectory: "Fixtures"))
        let log = try MotionLogParser.parse(Array(try Data(contentsOf: url)), file: url.path)
        #expect(log.samples.count > 1000)
        #expect(log.truth?.count == log.samples.count)
    }

    @Test("Plain decimals are read without a String, to the same bits Double(_:) gives; anything else is left to it")
    func plainDecimals() {
        func fast(_ text: String) -> Double? {
            Array(text.utf8).withUnsafeBufferPointer { MotionLogParser.plainDecimal($0[...]) }
        }
        var rng = SplitMix64(seed: 7)
        var checked = 0
        for _ in 0..<200_000 {
            let digits = Int(rng.next() % 17) + 1
            var text = (0..<digits).map { _ in String(rng.next() % 10) }.joined()
            let point = Int(rng.next() % UInt64(digits + 2))
            if point <= digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if rng.next() % 3 == 0 { text = (rng.next() % 2 == 0 ? "-" : "+") + text }
            if rng.next() % 5 == 0 { text = "0000" + text.drop { $0 == "-" || $0 == "+" } }
            guard let value = fast(text) else { continue }
            checked += 1
            #expect(value.bitPattern == Double(text)!.bitPattern, "\(text)")
        }
        #expect(checked > 100_000, "most of the cases take the fast path")
        for text in ["-0", "0.0", "9.80665", "-0.000123", "123456789012345", ".5", "5."] {
            #expect(fast(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
        for text in ["", "-", ".", "1e5", "nan", "inf", "1.2.3", "1234567890123456", "0x10", " 1", "1,5"] {
            #expect(fast(text) == nil, "\(text) is left to Double(_:)")
        }
    }
}
