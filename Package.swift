// swift-tools-version: 6.0
import PackageDescription

/// Release builds put every function in a section of its own, so that the linker can lay out the code
/// that runs (Tools/link/mouse3d.order) in a few contiguous pages (see the executable's linker flags).
/// LLVM's function merging is off: it moves the bodies it merges into nameless private functions
/// (173 of them, among them the witnesses argument-parser calls for every subcommand at start-up),
/// which no order list can name, so they stayed spread over the whole text (bench stream: peak RSS
/// at 1 kHz 0.5 MiB lower without it, text 13 kB larger).
let functionSections: [SwiftSetting] = [
    .unsafeFlags(
        ["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-llvm-merge-functions-pass"],
        .when(configuration: .release))
]

/// Modules whose code runs once, at start-up (parsing options, putting a command together, the
/// doctor, the configuration file), are optimised for size: they were 0.6 MB of the binary, and none
/// is on a per-sample or per-frame path (those are in Core, Linux and Network, optimised for speed).
let startUpCode: [SwiftSetting] =
    functionSections + [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
    name: "mouse3d",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mouse3d", targets: ["mouse3d"]),
        .library(name: "Mouse3DCore", targets: ["Mouse3DCore"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2")
    ],
    targets: [
        // Layer 1: pure Swift, no I/O, no C imports.
        .target(
            name: "Mouse3DCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: functionSections),

        // C libraries from Debian, each behind a one-line shim header.
        .systemLibrary(
            name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // Headers only: libudev is opened when devices are first looked for (see its shim.h).
        .systemLibrary(name: "CUdev", providers: [.apt(["libudev-dev"])]),
        // ristretto255 group operations for the pairing PAKE (swift-crypto has no prime-order group API).
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // Kernel and libc headers that Glibc's module leaves out (signalfd, ppoll with _GNU_SOURCE).
        .systemLibrary(name: "CLinux"),
        // TLS for the phone page (browsers give motion sensors to secure pages only) and its certificate.
        // Headers only: the library is opened when TLS is first used (see its shim.h), so no pkg-config
        // link flags (libssl-dev is still needed for the headers).
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        // The phone page's URL as a QR code in the terminal. Headers only: opened when a code is drawn.
        .systemLibrary(name: "CQRencode", providers: [.apt(["libqrencode-dev"])]),

        // Layer 2: the only code that imports C libraries or makes syscalls.
        .target(
            name: "Mouse3DLinux",
            dependencies: [
                "Mouse3DCore", "CEvdev", "CUdev", "CLinux", "CSodium", "COpenSSL", "CQRencode",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            swiftSettings: functionSections),

        // Layer 3: streaming, pairing, discovery.
        .target(
            name: "Mouse3DNetwork",
            dependencies: [
                "Mouse3DCore", "Mouse3DLinux",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "SystemPackage", package: "swift-system")
            ],
            swiftSettings: functionSections),

        // Layer 3: the live view in the browser (HTTP/1.1 and WebSocket on the event loop).
        .target(name: "Mouse3DView", dependencies: ["Mouse3DCore", "Mouse3DLinux"], swiftSettings: functionSections),

        // Layer 3: a phone's browser as the motion source (HTTPS page and WebSocket on the event loop).
        .target(name: "Mouse3DPhone", dependencies: ["Mouse3DCore", "Mouse3DLinux"], swiftSettings: functionSections),

        // Benchmarks that run real processes and sockets (`mouse3d bench stream|output|floor-peer`).
        .target(
            name: "Mouse3DBench",
            dependencies: [
                "Mouse3DCore", "Mouse3DLinux", "Mouse3DNetwork", .product(name: "RealModule", package: "swift-numerics")
            ],
            swiftSettings: functionSections),

        // `mouse3d doctor`: what the main job needs, checked, each with its fix.
        .target(
            name: "Mouse3DDoctor",
            dependencies: [
                "Mouse3DCore", "Mouse3DLinux", "Mouse3DNetwork", "Mouse3DConfig", "Mouse3DPhone",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            swiftSettings: startUpCode),

        // Configuration files (TOML through Core's reader), checked against Core's schema.
        .target(
            name: "Mouse3DConfig",
            dependencies: ["Mouse3DCore", "Mouse3DLinux"],
            swiftSettings: startUpCode),

        // Layer 4: the assembly of commands from the features: where a command streams and listens,
        // its sources and outputs, each a part the executable lists rather than builds.
        .target(
            name: "Mouse3DAssembly",
            dependencies: ["Mouse3DCore", "Mouse3DLinux", "Mouse3DNetwork", "Mouse3DPhone", "Mouse3DView"],
            swiftSettings: startUpCode),

        // Layer 5: the thin command-line executable.
        .executableTarget(
            name: "mouse3d",
            dependencies: [
                "Mouse3DCore", "Mouse3DLinux", "Mouse3DNetwork", "Mouse3DConfig", "Mouse3DBench", "Mouse3DView",
                "Mouse3DDoctor", "Mouse3DPhone", "Mouse3DAssembly",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: startUpCode,
            // Release: linked by the toolchain's lld with packed relative relocations (DT_RELR, glibc
            // 2.36+). gold writes 2 MB of RELA entries that the loader reads, and so keeps resident,
            // in every process; packed, they are 17 kB (bench stream: RSS at 1 kHz). The functions that
            // send, receive and run use are laid out first, together (Tools/link/make-order.sh says
            // why and how the list is made); a name the list has and the build lacks is skipped.
            // The C++ library the Swift runtime needs is linked in from GCC's libstdc++.a: the toolchain
            // asks for -lstdc++, which Tools/link/static (searched before GCC's folder) answers with a
            // linker script naming the archive. Loaded as libstdc++.so, the loader read its symbol
            // tables and relocated it in every process, 1.0 MB of resident memory; linked in, only the
            // few functions used come, about 0.3 MB (bench stream: RSS at 1 kHz).
            // Segments are aligned to 64 kB (max-page-size), so the kernel loads the binary at a 64 kB
            // boundary: the 64 kB windows it maps around each code page touched (fault-around) then fall
            // where the layout put them, not at a random 4 kB shift that splits the laid-out code over
            // one window more per run of code. Costs 4 of the load address's random bits.
            // Identical functions are folded into one (--icf=all): the value witnesses of structs laid out
            // alike, the protocol witness thunks and generic specializations that compile to the same
            // bytes, in our modules and in the static runtime and Foundation: 0.54 MB (3%) of the
            // stripped binary. Nothing in this program compares function addresses (Swift cannot; the
            // runtime compares metadata, not code), so only what a backtrace names can change: a folded
            // function is named by the one kept.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "-z",
                        "-Xlinker", "max-page-size=65536", "-Xlinker",
                        "--no-export-dynamic", "-Xlinker",
                        "--symbol-ordering-file=\(Context.packageDirectory)/Tools/link/mouse3d.order", "-Xlinker",
                        "--no-warn-symbol-ordering", "-Xlinker", "--icf=all",
                        "-L\(Context.packageDirectory)/Tools/link/static"
                    ], .when(configuration: .release))
            ]),

        // libFuzzer target for the network decoders (Tests/Fuzz/run.sh); a plain build replays inputs.
        .executableTarget(
            name: "DatagramFuzzer", dependencies: ["Mouse3DCore", "Mouse3DNetwork", "Mouse3DLinux"],
            path: "Tests/Fuzz/DatagramFuzzer"),

        // Device emulators and the tests that run inside the kernel VM (Tests/VM/run.sh).
        .target(
            name: "VMDeviceEmulators",
            dependencies: ["Mouse3DLinux", "CLinux", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tests/VM/Emulators"),
        .executableTarget(
            name: "mouse3d-vmtests",
            dependencies: ["VMDeviceEmulators", "Mouse3DLinux", "Mouse3DNetwork", "Mouse3DCore", "CLinux", "COpenSSL"],
            path: "Tests/VM/Runner"),

        .testTarget(
            name: "Mouse3DCoreTests",
            dependencies: ["Mouse3DCore", .product(name: "RealModule", package: "swift-numerics")],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "Mouse3DLinuxTests", dependencies: ["Mouse3DLinux"]),
        .testTarget(name: "Mouse3DAssemblyTests", dependencies: ["Mouse3DAssembly", "Mouse3DCore", "Mouse3DLinux"]),
        .testTarget(name: "Mouse3DBenchTests", dependencies: ["Mouse3DBench", "Mouse3DCore"]),
        .testTarget(name: "Mouse3DDoctorTests", dependencies: ["Mouse3DDoctor", "Mouse3DLinux", "Mouse3DNetwork"]),
        .testTarget(name: "Mouse3DConfigTests", dependencies: ["Mouse3DConfig", "Mouse3DCore", "Mouse3DLinux"]),
        .testTarget(
            name: "Mouse3DNetworkTests",
            dependencies: ["Mouse3DNetwork", .product(name: "Crypto", package: "swift-crypto")]),
        // Runs the built `mouse3d` executable as real processes (depends on it so it is built first).
        .testTarget(name: "EndToEndTests", dependencies: ["mouse3d", "Mouse3DCore", "Mouse3DLinux"])
    ],
    swiftLanguageModes: [.v6]
)
