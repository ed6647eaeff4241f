import Mouse3DCore
import Testing

@Suite("Merging separate accelerometer and gyroscope streams by time")
struct MotionSampleMergerTests {
    static func a(_ x: Double) -> SIMD3<Double> { SIMD3(x, 0, 9.8) }

    @Test("A gyroscope reading between two accelerometer readings gets the accelerometer interpolated to its time")
    func interpolates() throws {
        var m = MotionSampleMerger()
        m.accelerometer(Self.a(0), timestampNanoseconds: 0)
        m.accelerometer(Self.a(1), timestampNanoseconds: 10_000_000)
        let merged = m.gyroscope(.zero, timestampNanoseconds: 2_500_000)
        let s = try #require(merged)
        #expect(abs(s.specificForceMetersPerSecondSquared.x - 0.25) < 1e-12)
        #expect(s.timestampNanoseconds == 2_500_000)
    }

    @Test(
        "Read in a batch (five periods of the accelerometer, then five of the gyroscope), each gyroscope reading pairs with the accelerometer of its own moment, not the latest"
    )
    func batched() throws {
        var m = MotionSampleMerger()
        for k in 0..<5 { m.accelerometer(Self.a(Double(k)), timestampNanoseconds: Int64(k) * 10_000_000) }
        var got: [Double] = []
        for k in 0..<5 {
            let s = m.gyroscope(.zero, timestampNanoseconds: Int64(k) * 10_000_000 + 1_000_000)
            got.append(try #require(s).specificForceMetersPerSecondSquared.x)
        }
        // 1 ms after each accelerometer reading: a tenth of the way to the next; the last has no next.
        #expect(zip(got, [0.1, 1.1, 2.1, 3.1, 4.0]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(got)")
    }

    @Test(
        "Before any accelerometer reading a gyroscope reading is dropped and counted; before the first one it takes the earliest"
    )
    func edges() throws {
        var m = MotionSampleMerger()
        #expect(m.gyroscope(.zero, timestampNanoseconds: 0) == nil)
        #expect(m.droppedBeforeFirstAccelerometer == 1)
        m.accelerometer(Self.a(3), timestampNanoseconds: 20_000_000)
        m.accelerometer(Self.a(4), timestampNanoseconds: 30_000_000)
        let early = m.gyroscope(.zero, timestampNanoseconds: 5_000_000)
        let late = m.gyroscope(.zero, timestampNanoseconds: 50_000_000)
        #expect(early?.specificForceMetersPerSecondSquared.x == 3 && late?.specificForceMetersPerSecondSquared.x == 4)
    }

    @Test("An accelerometer clock that goes back starts the readings again from it")
    func clockBack() throws {
        var m = MotionSampleMerger()
        m.accelerometer(Self.a(1), timestampNanoseconds: 100_000_000)
        m.accelerometer(Self.a(2), timestampNanoseconds: 5_000_000)
        let s = m.gyroscope(.zero, timestampNanoseconds: 200_000_000)
        #expect(s?.specificForceMetersPerSecondSquared.x == 2)
    }
}
