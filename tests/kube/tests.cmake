# `tephra import kube` and `tephra export kube` (kernel/cli/kube), included by tests/CMakeLists.txt:
# the realistic kubectl dumps of tests/kube run to the binds derived in tests/kube/README.md,
# the bad dumps of tests/bad/kube fail with located messages, and every conformance fixture
# survives export then import with the same decisions.
set(kube_dir ${CMAKE_CURRENT_SOURCE_DIR}/kube)
set(kube_binds "team-a/train-a-worker-0=worker-1;team-a/train-a-worker-1=worker-1"
               "team-a/train-a-worker-2=worker-1;team-b/infer-b-server-0=worker-2"
               "team-b/debug-shell=worker-2")
foreach(fmt yaml json)
  add_test(NAME kube.realistic.${fmt}
           COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra> -DFILE=${kube_dir}/realistic.${fmt}
                   "-DBINDS=${kube_binds}" -P ${kube_dir}/binds.cmake)
endforeach()
add_test(NAME kube.bad COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra>
                               -DDIR=${CMAKE_CURRENT_SOURCE_DIR}/bad/kube -P ${kube_dir}/bad.cmake)
add_test(NAME kube.roundtrip
         COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra> -DSHARED=${TPH_CONFORMANCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/kube-roundtrip -P ${kube_dir}/roundtrip.cmake)
set_tests_properties(kube.roundtrip PROPERTIES TIMEOUT 900
                     SKIP_REGULAR_EXPRESSION "kube.roundtrip: skipped \\(")
