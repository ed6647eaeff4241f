import Glibc
import Mouse3DLinux

// The device tests that run inside the VM. Each prints one line the host harness reads:
//   VMTEST-CASE <name> PASS (<seconds> s)
//   VMTEST-CASE <name> FAIL: <reason>
// Arguments name the tests to run; without any, every test except the deliberately failing self-test.

let allTests: [(name: String, run: () throws -> Void)] = [
    ("list_without_sensors", ListTests.withoutSensors),
    ("uinput_roundtrip", UinputTests.roundTrip),
    ("uinput_motion_device_enumerated", UinputTests.motionDeviceEnumerated),
    ("dualsense_motion_sensors", DualSenseTests.motionSensors),
    ("dualsense_udev_properties", DualSenseTests.udevProperties),
    ("list_json_with_dualsense", ListTests.withDualSense),
    ("iio_sensor_hub_devices", SensorHubTests.devicesWithScales),
    ("dualsense_record_rates", LiveSourceTests.dualSenseRecord),
    ("dualshock4_record_rates", LiveSourceTests.dualShock4Record),
    ("switch_controllers_listed", SwitchControllerTests.listed),
    ("switch_pro_record_rates", SwitchControllerTests.proControllerRecord),
    ("controllers_with_other_ids", SwitchControllerTests.otherIDs),
    ("run_joycon_unplug_replug", SwitchControllerTests.joyConUnplugReplug),
    ("iio_record_buffered", LiveSourceTests.sensorHubBuffered),
    ("iio_record_polled", LiveSourceTests.sensorHubPolled),
    ("send_unplug_replug_resumes", LiveSourceTests.unplugReplug),
    ("replug_unreadable_says_why", LiveSourceTests.replugUnreadableSaysWhy),
    ("send_clutch_and_recenter", GestureTests.clutchAndRecenter),
    ("uinput_pointer_output", OutputTests.pointer),
    ("run_pointer_from_dualsense", RunTests.pointerFromDualSense),
    ("run_pointer_from_dualshock4", RunTests.pointerFromDualShock4),
    ("run_pointer_from_switch_pro", RunTests.pointerFromSwitchPro),
    ("switch_pro_average_rounded_down", SwitchTimingTests.averageRoundedDown),
    ("run_pointer_from_joycon_left", RunTests.pointerFromJoyConLeft),
    ("run_pointer_from_joycon_right", RunTests.pointerFromJoyConRight),
    ("run_pointer_dualsense_stalled", RunTests.pointerFromDualSenseStalled),
    ("run_pointer_switch_pro_stalled", RunTests.pointerFromSwitchProStalled),
    ("calibrate_dualsense", RunTests.calibrateDualSense),
    ("dsu_sticks_from_dualsense", RunTests.dsuSticksFromDualSense),
    ("dsu_motion_every_model", RunTests.dsuMotionEveryModel),
    ("dsu_sticks_from_switch_pro", RunTests.dsuSticksFromSwitchPro),
    ("uinput_joystick_output", OutputTests.joystick),
    ("uinput_spacemouse_output", OutputTests.spacemouse),
    ("uinput_one_sender_fails_others_served", OutputTests.oneSenderFailsOthersServed),
    ("uinput_output_latency_bench", OutputTests.latencyBench),
    ("spacenavd_picks_up_spacemouse", SpacenavdTests.pickedUp),
    ("uinput_permissions_group_rule", PermissionTests.uinputForGroupRule),
    ("netem_impairments", NetworkTests.impairments),
    ("netem_buttons_released", NetworkTests.buttons),
    ("view_at_lan_address", NetworkTests.viewAtLANAddress),
    ("run_pointer_from_phone", PhoneVMTests.pointerFromPhone),
    ("iio_pointer_flat_specific_force", IIOFrameTests.flatSpecificForce),
    ("iio_pointer_flat_gravity_vector", IIOFrameTests.flatGravity),
    ("iio_pointer_upright_specific_force", IIOFrameTests.uprightSpecificForce),
    ("iio_pointer_upright_gravity_vector", IIOFrameTests.uprightGravity),
    ("iio_pointer_hwdb_mount_matrix", IIOFrameTests.hwdbMountMatrix),
    ("calibrate_axes_then_pointer", AxesSetupVMTests.calibrateThenPointer),
    ("gamepad_identity_and_sdl", GamepadTests.identityAndSDL),
    ("gamepad_hides_real_pad", GamepadTests.hidesRealPad),
    ("gamepad_buttons_sticks_triggers", GamepadTests.buttonsSticksTriggers),
    ("gamepad_gyro_stick", GamepadTests.gyroStick),
    ("gamepad_unplug_mid_turn", GamepadTests.unplugMidTurn),
    ("receive_gamepad_from_a_sender", GamepadTests.receiveGamepad),
    // The seat test's (Tests/VM/Seat: a booted Debian with logind and the package installed).
    ("seat_device_acls", SeatTests.deviceACLs),
    ("seat_run_pointer_from_dualsense", SeatTests.runPointerFromDualSense),
    ("seat_doctor_fixes", SeatTests.doctorFixes),
    ("seat_receive_unit", SeatTests.receiveUnit),
    ("seat_send_unit", SeatTests.sendUnit),
    ("seat_run_unit", SeatTests.runUnit),
    ("seat_receive_after_reboot", SeatTests.receiveAfterReboot),
    (
        "harness_selftest_must_fail",
        { try expect(1 + 1 == 3, "this test fails on purpose, to prove failures are reported") }
    )
]
let defaultExcluded = Set(["harness_selftest_must_fail"] + allTests.map(\.name).filter { $0.hasPrefix("seat_") })

// `--shard=I/N`: only every Nth of the tests chosen, from the Ith (Tests/VM/run.sh boots N VMs at once).
let shardArgument = CommandLine.arguments.dropFirst().first { $0.hasPrefix("--shard=") }
let shard = shardArgument.map { $0.dropFirst("--shard=".count).split(separator: "/").compactMap { Int($0) } } ?? [0, 1]
if shard.count != 2 || shard[1] < 1 || !(0..<shard[1]).contains(shard[0]) {
    say("VMTEST-CASE shard FAIL: \(shardArgument ?? "") is not --shard=I/N with 0 <= I < N")
    exit(1)
}
let requested = Array(CommandLine.arguments.dropFirst()).filter { !$0.hasPrefix("--shard=") }.flatMap {
    $0.split(separator: ",").map(String.init)
}
let unknown = requested.filter { name in !allTests.contains { $0.name == name } }
if !unknown.isEmpty {
    say(
        "VMTEST-CASE \(unknown.joined(separator: ",")) FAIL: no such VM test; known: \(allTests.map(\.name).joined(separator: ", "))"
    )
    exit(1)
}
var failures = 0
let chosen = allTests.filter { requested.isEmpty ? !defaultExcluded.contains($0.name) : requested.contains($0.name) }
for (index, test) in chosen.enumerated() where index % shard[1] == shard[0] {
    say("VMTEST-START \(test.name)")
    let start = MonotonicClock.nanoseconds()
    do {
        try test.run()
        let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
        say("VMTEST-CASE \(test.name) PASS (\(Double(Int(seconds * 100)) / 100) s)")
    } catch {
        failures += 1
        say("VMTEST-CASE \(test.name) FAIL: \(error)")
    }
}
exit(failures == 0 ? 0 : 1)
