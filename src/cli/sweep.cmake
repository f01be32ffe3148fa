# `ccsim sweep` (src/cli/sweep_cmd.cpp; its specs, worker pool and collective study are in
# src/study/, part of ccsim_lib). Under an MPI launcher a sweep spreads its scenarios over the
# MPI ranks through measure::Communicator, so ccsim links ccsim_measure (MPI); MPI is initialised
# only when a launcher started the process. libmpi must come before ccsim_lib's libsimgrid on the
# link line (SMPI defines MPI_Init too, and the first library that defines it wins), so MPI goes
# first.
target_sources(ccsim PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sweep_cmd.cpp
)
get_target_property(ccsim_links ccsim LINK_LIBRARIES)
set_target_properties(ccsim PROPERTIES LINK_LIBRARIES "MPI::MPI_CXX;ccsim_measure;${ccsim_links}")
