/* rescue_version.h: the toolkit's version (public); keep in step with CMakeLists.txt. */
#ifndef RESCUE_VERSION_H
#define RESCUE_VERSION_H
#define RESCUE_VERSION_STRING "0.1.0"
#endif
