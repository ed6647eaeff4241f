/// Whose conventions a browser's `devicemotion` follows. Every current engine gives `rotationRate`
/// in °/s about the device's x, y, z as alpha, beta, gamma (Chromium: `RadToDeg(gyro.x)`..., WebKit:
/// `rad2deg(rotationRate.x)`..., Gecko alike), in the device's own frame whatever the screen's
/// orientation. They differ in `accelerationIncludingGravity`: the specification, Chromium and
/// Gecko give what an accelerometer feels (+9.81 m/s² on z for a phone lying screen up: mouse3d's
/// specific force); WebKit on iOS gives CoreMotion's `userAcceleration + gravity` scaled by g,
/// the opposite sign (−9.81 on z lying screen up). The page tells which (WebKit on iOS and iPadOS:
/// its user agent names an iPhone, iPad or iPod, or is a Mac's with a touch screen).
public enum PhonePlatform: UInt8, Sendable, Equatable {
    /// The specification's signs (Android's Chrome and Firefox, desktop Chromium).
    case standard = 0
    /// WebKit on iOS and iPadOS: `accelerationIncludingGravity` negated.
    case webKit = 1
}
