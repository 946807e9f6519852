# The public/private line, checked from the source tree (ctest entry "boundary"):
# - every header of corpus/, annotate/ and export/ is public (rescue*.h) or private (*_int.h);
# - public headers include no <sqlite3.h>, libav or libxml2 header;
# - private headers hide their declarations (#pragma GCC visibility push(hidden));
# - tools/ (CLI, the review server in tools/serve/, benchmarks, fuzz drivers) includes no
#   private header (*_int.h; the server's own shared header is serve_impl.h) and no path
#   into the library's folders. The build enforces it too: tools/ get only
#   <build>/include/rescue on their include path.
# - the review server (tools/serve/) reaches the store only through library calls: no
#   <sqlite3.h>.
# Usage: cmake -DSRC=<source dir> -P boundary.cmake
set(bad "")
foreach(mod corpus annotate export)
  file(GLOB headers "${SRC}/${mod}/*.h")
  foreach(h ${headers})
    get_filename_component(n "${h}" NAME)
    file(READ "${h}" text)
    if(n MATCHES "^rescue.*\\.h$")
      if(text MATCHES "#include[ \t]*<(sqlite3|libav[a-z]*/|libxml/|libsw[a-z]*/)")
        string(APPEND bad "${mod}/${n}: a public header includes <${CMAKE_MATCH_1}...>\n")
      endif()
    elseif(n MATCHES "_int\\.h$")
      if(NOT text MATCHES "#pragma GCC visibility push\\(hidden\\)")
        string(APPEND bad "${mod}/${n}: a private header without visibility push(hidden)\n")
      endif()
    else()
      string(APPEND bad "${mod}/${n}: neither public (rescue*.h) nor private (*_int.h)\n")
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE tools "${SRC}/tools/*.c" "${SRC}/tools/*.h")
foreach(f ${tools})
  file(STRINGS "${f}" incs REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${incs})
    if(line MATCHES "_int\\.h|\\.\\./|(corpus|annotate|export)/")
      file(RELATIVE_PATH rel "${SRC}" "${f}")
      string(APPEND bad "${rel}: includes a private header: ${line}\n")
    endif()
    if(f MATCHES "/tools/serve/" AND line MATCHES "sqlite3\\.h")
      file(RELATIVE_PATH rel "${SRC}" "${f}")
      string(APPEND bad "${rel}: the server uses SQLite directly: ${line}\n")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "public/private boundary:\n${bad}")
endif()
