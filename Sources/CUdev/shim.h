/* libudev, for finding motion devices and following hotplug.

   Opened when devices are first looked for (dlopen), not linked: a `receive`, or a `send` that
   replays a log, never needs it (bench stream: peak RSS). The header gives the types;
   M3D_OPENED_LIBRARY (CLinux/opened_library.h) declares the table and m3d_udev(). */
#include <libudev.h>
#include "../CLinux/opened_library.h"

/* The library file name opened (scripts/build-deb.sh adds its package to Depends). */
#define M3D_LIBUDEV "libudev.so.1"

#define M3D_UDEV_FUNCTIONS(F) \
    F(udev_device_get_action) F(udev_device_get_devnode) F(udev_device_get_parent) \
    F(udev_device_get_property_value) F(udev_device_get_subsystem) F(udev_device_get_sysattr_value) \
    F(udev_device_get_sysname) F(udev_device_get_syspath) F(udev_device_new_from_syspath) F(udev_device_unref) \
    F(udev_enumerate_add_match_subsystem) F(udev_enumerate_get_list_entry) F(udev_enumerate_new) \
    F(udev_enumerate_scan_devices) F(udev_enumerate_unref) F(udev_list_entry_get_name) \
    F(udev_list_entry_get_next) F(udev_monitor_enable_receiving) F(udev_monitor_filter_add_match_subsystem_devtype) \
    F(udev_monitor_get_fd) F(udev_monitor_new_from_netlink) F(udev_monitor_receive_device) F(udev_monitor_unref) \
    F(udev_new) F(udev_unref)

M3D_OPENED_LIBRARY(udev, M3D_UDEV_FUNCTIONS, M3D_LIBUDEV)
