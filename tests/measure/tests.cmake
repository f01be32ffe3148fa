# Tests of src/measure/: the real executor on threads (no MPI needed), and real MPI/UCX runs
# of ccsim-measure (tests/measure/run_measure.sh) with 2 and 4 processes.
add_executable(ccsim_measure_tests
  $<TARGET_OBJECTS:ccsim_catch_main>
  measure/thread_transport.cpp
  measure/launch_test.cpp
  measure/real_executor_test.cpp
  measure/mpi_path_test.cpp
  measure/selection_test.cpp
)
target_link_libraries(ccsim_measure_tests PRIVATE ccsim_measure ccsim_warnings Catch2::Catch2)
catch_discover_tests(ccsim_measure_tests)

# Real runs: every series' result is checked by ccsim-measure itself (exit 5 on a failure)
# and the file by check_measurements.py. Small sizes: CI runs them on 2 cores.
function(ccsim_measure_run name np expect)
  add_test(NAME measure.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/measure/run_measure.sh $<TARGET_FILE:ccsim-measure> ${np} ${expect} -- ${ARGN})
  set_tests_properties(measure.${name} PROPERTIES RUN_SERIAL TRUE TIMEOUT 700)
endfunction()
add_test(NAME measure.cores_per_node
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/measure/cores_per_node.sh $<TARGET_FILE:ccsim-measure>)
set_tests_properties(measure.cores_per_node PROPERTIES RUN_SERIAL TRUE TIMEOUT 300)
set(ccsim_measure_transports mpi)
set(ucx "")  # series expected over UCX too
set(ucx_plain "")
if(UCX_FOUND)
  set(ccsim_measure_transports mpi,ucx)
  set(ucx ",ring/ucx,compressed-ring/ucx")
  set(ucx_plain ",ring/ucx,rabenseifner/ucx")
endif()
ccsim_measure_run(plain_np2 2 "MPI_Allreduce/mpi,ring/mpi,MPI_Allgatherv/mpi,MPI_Reduce_scatter/mpi,p2p${ucx_plain}"
  --op all_reduce,all_gather,reduce_scatter --algo mpi,ring,recursive-doubling,rabenseifner,binomial-tree
  --transport ${ccsim_measure_transports} --sizes 1KiB:1MiB:x32 --reps 3 --warmup 1 --p2p)
ccsim_measure_run(compressed_np2 2 "compressed-ring/mpi,homomorphic-ring/mpi${ucx}"
  --algo mpi,ring,compressed-ring,homomorphic-ring --codec ccsz:rel=1e-3
  --transport ${ccsim_measure_transports} --sizes 4KiB,1MiB --reps 3 --warmup 1)
ccsim_measure_run(layout_np4 4 "MPI_Allreduce/mpi,ring/mpi,compressed-ring/mpi${ucx}"
  --layout tp=2,dp=2 --groups world,tp,dp --op all_reduce,reduce_scatter --algo mpi,ring,rabenseifner,compressed-ring
  --codec ccsz:rel=1e-3 --transport ${ccsim_measure_transports} --sizes 4KiB,256KiB --reps 3 --warmup 1)
ccsim_measure_run(quantized_np4 4 "compressed-allgather/mpi,ring/mpi"
  --algo ring,compressed-allgather --codec int8 --error-feedback --transport ${ccsim_measure_transports}
  --sizes 64KiB --reps 3 --warmup 1)
ccsim_measure_run(zfp_np3 3 "compressed-ring/mpi"
  --algo mpi,ring,compressed-ring --codec zfp:rel=1e-3 --transport mpi --sizes 12KiB,300000 --reps 4 --rounds 2 --warmup 1)

# Bad input: a clear message and its exit code (1 bad input; 2 an unknown name on the command
# line, a malformed command line as in ccsim), before MPI starts (golden files).
function(ccsim_measure_golden name rc expected_file args)
  ccsim_golden(${name} ${rc} ${expected_file} "${args}" PROGRAM $<TARGET_FILE:ccsim-measure>)
endfunction()
ccsim_measure_golden(measure_bad_codec 2 measure_bad_codec.txt "--codec|ccsz:eb=1e-3")
ccsim_measure_golden(measure_bad_size 1 measure_bad_size.txt "--sizes|1KiB:1000")
ccsim_measure_golden(measure_bad_algo 2 measure_bad_algo.txt "--algo|mpi,fastest")
ccsim_measure_golden(measure_bad_layout 2 measure_bad_layout.txt "--layout|tp=2,ep=4")
ccsim_measure_golden(measure_bad_rounds 1 measure_bad_rounds.txt "--rounds|5|--reps|3")

# `ccsim measure --np N` starts ccsim-measure under mpirun.
add_test(NAME measure.launcher COMMAND $<TARGET_FILE:ccsim> measure --np 2 --sizes 4KiB --reps 2
  -o ${CMAKE_CURRENT_BINARY_DIR}/measure_launcher.json)
set_tests_properties(measure.launcher PROPERTIES RUN_SERIAL TRUE TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  PASS_REGULAR_EXPRESSION "all_reduce +world ring +mpi +4096 B.*bitwise ok")
add_test(NAME measure.mpi_over COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/measure/mpi_over.sh $<TARGET_FILE:ccsim>)
set_tests_properties(measure.mpi_over PROPERTIES RUN_SERIAL TRUE TIMEOUT 300)
