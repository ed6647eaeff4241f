import ArgumentParser
import Mouse3DAssembly
import Mouse3DCore
import Mouse3DLinux

extension Mouse3D {
    /// `mouse3d replay`: runs the fusion over a recorded log and prints the attitude of every sample.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse a recorded motion log and print one attitude per input sample.",
            discussion: """
                The log is CSV with a header line and the columns t,gx,gy,gz,ax,ay,az (seconds, rad/s, m/s²) \
                in any order; other columns are ignored. Angles are Tait–Bryan Z-Y-X (yaw, pitch, roll) in \
                a frame whose Z axis points up; the quaternion is scalar first and rotates sensor vectors \
                into that frame.
                """)

        @Argument(help: "The motion log to replay (CSV).")
        var log: String

        @Option(help: "Output format: table (degrees, readable), csv or jsonl (radians).")
        var output: ReplayOutputFormat = .table

        @Flag(
            help:
                "With --output csv: add the filter's state (rest, accelerometer rejected, gyroscope bias in rad/s) to each row."
        )
        var state = false

        @OptionGroup var filter: FilterOptions

        func validate() throws {
            if state && output != .csv { throw ValidationError("--state needs --output csv.") }
        }

        func run() throws {
            let motionLog = try loadMotionLog(path: log)
            var estimator = AttitudeEstimator(parameters: try filter.parameters())
            let out = BufferedOutput()
            if let header = output.header { try out.writeLine(state ? header + ",tau,rest,rejected,bx,by,bz" : header) }
            for sample in motionLog.samples {
                estimator.update(sample)
                var row = output.row(time: sample.timestampNanoseconds, attitude: estimator.attitude)
                if state {
                    let b = estimator.gyroBiasRadiansPerSecond
                    row +=
                        ",\(estimator.accelerometerTimeConstantSeconds),\(estimator.isAtRest ? 1 : 0),\(estimator.isRejectingAccelerometer ? 1 : 0),\(b.x),\(b.y),\(b.z)"
                }
                try out.writeLine(row)
            }
            try out.flush()
        }
    }
}

/// How `replay` prints each attitude.
enum ReplayOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, jsonl

    /// The first line, if the format has one.
    var header: String? {
        switch self {
        case .csv: "t,qw,qx,qy,qz,roll,pitch,yaw"
        case .table: "       t (s)   roll (°)  pitch (°)    yaw (°)          qw          qx          qy          qz"
        case .jsonl: nil
        }
    }

    /// One line for one attitude. CSV and JSON numbers round-trip exactly.
    func row(time nanoseconds: Int64, attitude: Attitude) -> String {
        let q = attitude.quaternion
        let t = MotionLogWriter.formatSeconds(nanoseconds)
        switch self {
        case .csv:
            return
                "\(t),\(q.w),\(q.x),\(q.y),\(q.z),\(attitude.rollRadians),\(attitude.pitchRadians),\(attitude.yawRadians)"
        case .jsonl:
            return "{\"t\":\(t),\"qw\":\(q.w),\"qx\":\(q.x),\"qy\":\(q.y),\"qz\":\(q.z),"
                + "\"roll\":\(attitude.rollRadians),\"pitch\":\(attitude.pitchRadians),\"yaw\":\(attitude.yawRadians)}"
        case .table:
            let degrees = attitude.eulerRadians * (180 / .pi)
            return fixed(Double(nanoseconds) * 1e-9, 4, width: 12) + " "
                + [degrees.x, degrees.y, degrees.z].map { fixed($0, 3, width: 10) }.joined(separator: " ") + " "
                + [q.w, q.x, q.y, q.z].map { fixed($0, 6, width: 11) }.joined(separator: " ")
        }
    }
}
