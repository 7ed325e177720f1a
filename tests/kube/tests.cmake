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
add_test(NAME kube.roundtrip.own
         COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra>
                 -DFIXTURES=${CMAKE_CURRENT_SOURCE_DIR}/scenarios
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/kube-roundtrip-own -P ${kube_dir}/roundtrip.cmake)

# A directory: files in name order, recursively (.hidden.yaml and notes.txt are not read), a
# NodeList with merge keys, multi-document YAML, JSON; its one bind.
add_test(NAME kube.dir COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra> -DFILE=${kube_dir}/dir
                               "-DBINDS=team-a/solo=n1" -P ${kube_dir}/binds.cmake)
tph_cli_test(kube.dir.order RC 0
             MATCH "name: \"solo\"[^\n]*\n[^\n]*name: \"job-b-0\"[^\n]*\n[^\n]*name: \"job-b-1\""
             COMMAND ${tephra} import kube ${kube_dir}/dir)
tph_cli_test(kube.dir.merge RC 0
             MATCH "name: \"n2\"[^\n]*pods: \"110\"[^\n]*zone: \"zone-b\", kubernetes.io/os: \"linux\""
             COMMAND ${tephra} import kube ${kube_dir}/dir)
# Standard input, the skipped kinds and other schedulers' pods on no node, one warning each.
tph_cli_test(kube.stdin RC 0 STDIN ${kube_dir}/realistic.json
             MATCH "name: \"kube import of -\"[^\n]*\n.*skipped 6 objects of kind ConfigMap [^\n]*\n[^\n]*skipped 1 pod of other schedulers on no node"
             COMMAND ${tephra} import kube -)
# run --kube takes --conf over the dump's ConfigMap: enqueue alone binds nothing.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kube-enqueue-only.conf "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: gang\n")
tph_cli_test(kube.run.conf RC 0 MATCH "^[^\n]*: 0 tasks bound"
             COMMAND ${tephra} run --kube ${kube_dir}/realistic.yaml
                     --conf ${CMAKE_CURRENT_BINARY_DIR}/kube-enqueue-only.conf)
tph_cli_test(kube.usage.both RC 2 MATCH "tephra run: a scenario and --kube cannot both be given"
             COMMAND ${tephra} run ${gangs} --kube ${kube_dir}/realistic.yaml)
tph_cli_test(kube.usage.no_input RC 2 MATCH "tephra import kube: no file or directory given"
             COMMAND ${tephra} import kube)
tph_cli_test(kube.usage.export RC 2 MATCH "tephra export: no format given \\(kube\\)"
             COMMAND ${tephra} export)
tph_cli_test(kube.usage.export_format RC 2 MATCH "tephra export: unknown format 'json' \\(kube\\)"
             COMMAND ${tephra} export json ${gangs})
tph_cli_test(kube.help.import RC 0 MATCH "^usage: tephra import kube FILE\\|DIR\\.\\.\\."
             COMMAND ${tephra} import kube --help)
tph_cli_test(kube.help.export RC 0 MATCH "^usage: tephra export kube SCENARIO"
             COMMAND ${tephra} export kube --help)
tph_cli_test(kube.missing RC 2 MATCH "tephra import kube: [^\n]*no-such-dump.yaml: No such file"
             COMMAND ${tephra} import kube ${kube_dir}/no-such-dump.yaml)
# A bad scenario fails export with the loader's message, and nothing is written.
tph_cli_test(kube.export.bad RC 2 MATCH "006-bad-quantity.yaml:[0-9]+:[0-9]+: pod c1/p1: field requests.cpu"
             COMMAND ${tephra} export kube ${CMAKE_CURRENT_SOURCE_DIR}/bad/006-bad-quantity.yaml)
tph_cli_test(kube.export.expect_dropped RC 0
             MATCH "^# dropped: expect \\(no Kubernetes home\\)\napiVersion: v1\nkind: List\n.*warning: [^\n]*expect: dropped"
             COMMAND ${tephra} export kube ${gangs})
# Another scheduler's name: the volcano pods of the dump become other schedulers' pods.
tph_cli_test(kube.scheduler_name RC 0 MATCH "skipped 10 pods of other schedulers on no node"
             COMMAND ${tephra} import kube ${kube_dir}/realistic.yaml --scheduler-name=my-scheduler)
# confFile: inlined in the ConfigMap, relative to the scenario (run from elsewhere).
tph_cli_test(kube.export.conffile RC 0 WORKDIR ${CMAKE_CURRENT_BINARY_DIR}
             MATCH "kind: ConfigMap[^\n]*volcano-scheduler.conf: \"# Volcano's default scheduler conf[^\n]*actions: \\\\\"enqueue, allocate, backfill"
             COMMAND ${tephra} export kube ${kube_dir}/conffile/scenario.yaml)
# Names the API server refuses (a queue with '_', an upper-case namespace): exported, with one
# warning that names the first.
tph_cli_test(kube.export.bad_names RC 0
             MATCH "warning: [^\n]*: 2 names that Kubernetes refuses \\(e.g. Queue \"team_a\"\\)"
             COMMAND ${tephra} export kube ${kube_dir}/bad-names.yaml)
# Pods on a node the dump does not hold: on no node, a bound one counted as Running.
add_test(NAME kube.missing_node
         COMMAND ${CMAKE_COMMAND} -DTEPHRA=$<TARGET_FILE:tephra> -DFILE=${kube_dir}/missing-node.yaml
                 "-DBINDS=ns/a-1=n1;ns/a-2=n1" -P ${kube_dir}/binds.cmake)
tph_cli_test(kube.missing_node.warning RC 0
             MATCH "name: \"a-0\", namespace: \"ns\", podGroup: \"gang-a\", phase: \"Running\", [^\n]*\n.*warning: 2 pods on nodes the dump does not hold"
             COMMAND ${tephra} import kube ${kube_dir}/missing-node.yaml)
