#include "trace/validate.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/flat_map.hpp"
#include "core/index.hpp"

namespace ccsim::trace {
namespace {

struct OpRef {
  int rank;
  std::size_t index;
};

struct ChannelKey {
  int src;
  int dst;
  Names::Id tag;
  bool operator==(const ChannelKey&) const = default;
};

class Validator {
 public:
  Validator(const Trace& trace, const OpOrigin* origin)
      : trace_(trace),
        origin_(origin),
        comm_(trace.programs.size()),
        forms_(trace.programs.size()),
        form_of_(trace.programs.size()) {
    ops_of_form_.resize(trace.programs.size());
    // The checks below concern only the operators that communicate: most are compute (97
    // million operators at 10,240 ranks, 3 % of them communicating).
    for (std::size_t p = 0; p < trace.programs.size(); ++p) {
      const std::vector<Op>& ops = trace.programs[p].ops;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].kind != OpKind::kCompute) comm_[p].push_back(i);
      }
      forms_[p] = trace.programs[p].partner_forms(true, &form_of_[p]);
    }
    // Each rank's groups and its position there (Group::index_of searches a group's ranks: a
    // data-parallel group of 80 replicas, asked for each rank and form, grew with the job).
    positions_.resize(static_cast<std::size_t>(std::max(trace.world_size, 0)));
    for (std::size_t g = 0; g < trace.groups.size(); ++g) {
      const std::vector<int>& ranks = trace.groups[g].ranks;
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (ranks[i] >= 0 && ranks[i] < trace.world_size) {
          positions_[static_cast<std::size_t>(ranks[i])].emplace_back(static_cast<int>(g), static_cast<int>(i));
        }
      }
    }
  }

  void run() {
    check_partners();
    // Each check first by operator forms (a rank's operators of one form share partners and
    // channel, and ranks of one program share the sequences of its forms): sound, and linear in
    // ranks times forms instead of ranks times operators. Where it cannot tell, the check
    // operator by operator decides, and names the problem.
    if (!streams_agree_by_form()) check_streams();
    if (!messages_match_by_form()) check_point_to_point();
    if (!collectives_match_by_form()) check_collectives();
  }

 private:
  Op op(const OpRef& ref) const { return trace_.op(ref.rank, ref.index); }

  /// The indices of `rank`'s operators that are not compute, in program order.
  const std::vector<std::size_t>& comm(int rank) const {
    return comm_[static_cast<std::size_t>(at(trace_.program_of, rank))];
  }

  [[noreturn]] void fail(const OpRef& ref, const std::string& detail, const char* field_suffix = "") const {
    if (origin_ != nullptr && *origin_) {
      if (const std::optional<SourceRef> from = (*origin_)(ref.rank, ref.index)) {
        throw InputError(from->file, from->line, from->field,
                         fmt::format("{} (the operator {}{} of the trace it makes)", detail,
                                     trace_.op_field(ref.rank, ref.index), field_suffix));
      }
    }
    throw InputError(trace_.source, trace_.program_ops(ref.rank)[ref.index].line,
                     trace_.op_field(ref.rank, ref.index) + field_suffix, detail);
  }

  /// Every rank can run its program: relative partners resolve for it (a version-2 program
  /// shared by ranks), it is a member of its collectives' groups and not its own peer. A
  /// version-1 reader checked the rest as it read; this repeats it cheaply. Operators of one
  /// form (Program::partner_forms) pass or fail alike: a rank's first operator of each form
  /// stands for the others, and the first that fails is its first failing operator.
  void check_partners() const {
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<Op>& ops = trace_.program_ops(rank);
      for (std::size_t i : forms_[static_cast<std::size_t>(at(trace_.program_of, rank))]) {
        const OpRef ref{rank, i};
        Op o = ops[i];
        if (o.relative & kGroupByKind) {
          Op group_only = o;
          group_only.relative = kGroupByKind;
          std::string why = trace_.resolve(rank, group_only);
          if (!why.empty()) fail(ref, why, ".group");
          o.group = group_only.group;
          o.relative = static_cast<std::uint8_t>(o.relative & ~kGroupByKind);
        }
        std::string why = trace_.resolve(rank, o);
        if (!why.empty()) fail(ref, why, o.kind == OpKind::kBroadcast ? ".root" : ".peer");
        if (!is_collective(o.kind)) {
          if (o.peer == rank)
            fail(ref, fmt::format("a rank cannot {} to itself, got \"{}\"", op_kind_name(o.kind), o.peer), ".peer");
          continue;
        }
        const Group& g = at(trace_.groups, o.group);
        if (position(o.group, rank) < 0) {
          fail(
              ref,
              fmt::format("rank {} is not a member of group \"{}\" (ranks {})", rank, g.name, fmt::join(g.ranks, ", ")),
              ".group");
        }
        if (o.kind == OpKind::kBroadcast && position(o.group, o.root) < 0) {
          fail(ref,
               fmt::format("expected a member of group \"{}\" (ranks {}), got \"{}\"", g.name, fmt::join(g.ranks, ", "),
                           o.root),
               ".root");
        }
        if ((o.kind == OpKind::kAllGather || o.kind == OpKind::kReduceScatter || o.kind == OpKind::kAllToAll) &&
            o.bytes % (static_cast<std::uint64_t>(g.ranks.size()) * static_cast<std::uint64_t>(dtype_bytes(o.dtype))) !=
                0) {
          fail(ref,
               fmt::format("{} on a group of {} ranks needs a whole number of {} elements per rank, got \"{}\"",
                           op_kind_name(o.kind), g.ranks.size(), dtype_name(o.dtype), o.bytes),
               ".bytes");
        }
      }
    }
  }

  /// A rank's collectives on one group, and its messages to or from one partner with one tag,
  /// are each on one stream: the order in which it calls them is then its program's (MPI's and
  /// NCCL's rule for a communicator), not a race between streams.
  void check_streams() const {
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const Program& program = trace_.programs[static_cast<std::size_t>(at(trace_.program_of, rank))];
      if (program.stream_count() == 1) continue;
      std::unordered_map<std::uint64_t, std::size_t> first;  // channel -> its first operator
      for (std::size_t i : comm(rank)) {
        const Op o = trace_.op(rank, i);
        const bool send = o.kind == OpKind::kSend;
        const std::uint64_t key =
            is_collective(o.kind) ? static_cast<std::uint64_t>(static_cast<std::uint32_t>(o.group))
                                  : (std::uint64_t{send ? 2u : 1u} << 62) |
                                        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(o.peer)) << 32) | o.tag;
        auto [it, fresh] = first.try_emplace(key, i);
        const Op& earlier = program.ops[it->second];
        if (!fresh && earlier.stream != o.stream) {
          const std::string what = is_collective(o.kind)
                                       ? fmt::format("collectives on group \"{}\"", at(trace_.groups, o.group).name)
                                       : fmt::format("{}s {} rank {} with tag {}", op_kind_name(o.kind),
                                                     send ? "to" : "from", o.peer, tag_text(o.tag));
          fail({rank, i},
               fmt::format("rank {}'s {} must all be on one stream (their order is the program's): operator #{} "
                           "is on stream {}, operator #{} (line {}) on stream {}",
                           rank, what, i, o.stream, it->second, earlier.line, earlier.stream),
               ".stream");
        }
      }
    }
  }

  int line(const OpRef& ref) const { return trace_.program_ops(ref.rank)[ref.index].line; }
  /// Where another operator an error mentions is: its origin, or its line in the trace.
  std::string place(const OpRef& ref) const {
    if (origin_ != nullptr && *origin_) {
      if (const std::optional<SourceRef> from = (*origin_)(ref.rank, ref.index))
        return fmt::format("{}: {}", from->file, from->field);
    }
    return fmt::format("line {}", line(ref));
  }

  /// The position of `rank` in group `g`, -1 when it is not a member (Group::index_of).
  int position(int g, int rank) const {
    if (rank < 0 || rank >= trace_.world_size) return -1;
    for (const auto& [group, index] : at(positions_, rank)) {
      if (group == g) return index;
    }
    return -1;
  }

  /// The program of `rank`.
  std::size_t program(int rank) const { return static_cast<std::size_t>(at(trace_.program_of, rank)); }

  /// Whether program `p`'s messages of one kind (send or receive) and tag are all on one
  /// stream, and its collectives too: then no two of its operators that resolve to one channel
  /// for a rank are on different streams.
  bool one_stream_per_class(std::size_t p) const {
    const Program& program = trace_.programs[p];
    std::unordered_map<std::uint64_t, int> stream;  // (kind, tag) of messages -> stream
    int collectives = -1;
    for (std::size_t i : comm_[p]) {
      const Op& o = program.ops[i];
      if (is_collective(o.kind)) {
        if (collectives >= 0 && collectives != o.stream) return false;
        collectives = o.stream;
        continue;
      }
      const std::uint64_t key = (std::uint64_t{o.kind == OpKind::kSend ? 2u : 1u} << 62) | o.tag;
      if (stream.try_emplace(key, o.stream).first->second != o.stream) return false;
    }
    return true;
  }

  /// check_streams by form: every form's operators on one stream, and the forms of one channel
  /// of a rank on one stream. True when that holds (then check_streams would pass).
  bool streams_agree_by_form() const {
    std::vector<std::vector<int>> stream_of_form(trace_.programs.size());
    for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
      const Program& program = trace_.programs[p];
      if (program.stream_count() == 1) continue;
      std::vector<int>& streams = stream_of_form[p];
      streams.assign(forms_[p].size(), -1);
      for (std::size_t i : comm_[p]) {
        int& s = streams[static_cast<std::size_t>(form_of_[p][i])];
        if (s >= 0 && s != program.ops[i].stream) return false;
        s = program.ops[i].stream;
      }
      // Forms that resolve to one channel for some rank have one kind and tag (messages) or are
      // collectives: where each such class is on one stream, every rank's channels are.
      if (one_stream_per_class(p)) streams.clear();
    }
    std::unordered_map<std::uint64_t, int> stream;  // channel -> stream
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<int>& streams = stream_of_form[program(rank)];
      if (streams.empty()) continue;
      stream.clear();
      const std::vector<std::uint32_t>& forms = forms_[program(rank)];
      for (std::size_t f = 0; f < forms.size(); ++f) {
        const Op o = trace_.op(rank, forms[f]);
        const bool send = o.kind == OpKind::kSend;
        const std::uint64_t key =
            is_collective(o.kind) ? static_cast<std::uint64_t>(static_cast<std::uint32_t>(o.group))
                                  : (std::uint64_t{send ? 2u : 1u} << 62) |
                                        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(o.peer)) << 32) | o.tag;
        if (stream.try_emplace(key, streams[f]).first->second != streams[f]) return false;
      }
    }
    return true;
  }

  /// A sequence of operators of a program: those of some of its forms, in program order.
  using FormSet = std::vector<std::int32_t>;
  /// Costs what it selects (a version-1 rank that sends to a thousand peers once each asks for
  /// a thousand channels of one form each).
  const std::vector<std::uint32_t>& select(std::size_t p, const FormSet& forms) const {
    if (ops_of_form_[p].empty()) {
      ops_of_form_[p].resize(forms_[p].size());
      for (std::size_t i : comm_[p])
        ops_of_form_[p][static_cast<std::size_t>(form_of_[p][i])].push_back(static_cast<std::uint32_t>(i));
    }
    if (forms.size() == 1) return ops_of_form_[p][static_cast<std::size_t>(forms.front())];
    auto [it, fresh] = selected_.try_emplace({p, forms});
    if (fresh) {
      for (std::int32_t f : forms) {
        const std::vector<std::uint32_t>& mine = ops_of_form_[p][static_cast<std::size_t>(f)];
        it->second.insert(it->second.end(), mine.begin(), mine.end());
      }
      std::sort(it->second.begin(), it->second.end());  // program order
    }
    return it->second;
  }
  mutable std::vector<std::vector<std::vector<std::uint32_t>>> ops_of_form_;  ///< per program, per form: its operators
  mutable std::map<std::pair<std::size_t, FormSet>, std::vector<std::uint32_t>> selected_;

  /// check_point_to_point by form: the sends of a channel (sender, receiver, tag) are the
  /// operators of the sender's program of the forms that resolve to it, and so are its
  /// receives; channels of equal (programs, forms) match alike. True when every channel's
  /// sends and receives pair up with equal sizes.
  bool messages_match_by_form() const {
    // Per rank, its sends and its receives as (peer, tag, form), each sorted so that a
    // channel's forms are together in form order: a channel (sender, receiver, tag) is a run
    // of the sender's sends and a run of the receiver's receives. Per rank, not one sort of
    // all: the runs of a rank are found by a search in its peer's.
    struct Side {
      int peer = 0;
      Names::Id tag = 0;
      std::int32_t form = 0;
      bool operator<(const Side& o) const { return std::tie(peer, tag, form) < std::tie(o.peer, o.tag, o.form); }
    };
    const auto world = static_cast<std::size_t>(std::max(trace_.world_size, 0));
    std::vector<Side> sides[2];        // [0] sends, [1] receives, rank by rank
    std::vector<std::size_t> from[2];  // per rank + 1: where its sides start
    for (int k = 0; k < 2; ++k) from[k].assign(world + 1, 0);
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<std::uint32_t>& forms = forms_[program(rank)];
      for (std::size_t f = 0; f < forms.size(); ++f) {
        const OpKind kind = trace_.program_ops(rank)[forms[f]].kind;
        if (kind != OpKind::kSend && kind != OpKind::kRecv) continue;
        const Op o = trace_.op(rank, forms[f]);
        if (o.peer < 0 || o.peer >= trace_.world_size) return false;
        sides[kind == OpKind::kSend ? 0 : 1].push_back({o.peer, o.tag, static_cast<std::int32_t>(f)});
      }
      for (int k = 0; k < 2; ++k) {
        from[k][static_cast<std::size_t>(rank) + 1] = sides[k].size();
        std::sort(sides[k].begin() + static_cast<std::ptrdiff_t>(from[k][static_cast<std::size_t>(rank)]),
                  sides[k].end());
      }
    }
    // Channels of equal (programs, forms) match alike: decided once, by numbered form sets.
    std::map<FormSet, std::size_t> form_set_ids;
    const auto id_of = [&](const FormSet& set) {
      return form_set_ids.try_emplace(set, form_set_ids.size()).first->second;
    };
    std::map<std::array<std::size_t, 4>, bool> decided;
    constexpr std::uint64_t kPacked12 = 1U << 12, kPacked20 = 1U << 20;
    FlatMap64<std::uint8_t> decided_one;  // 1: they match, 2: they do not
    FormSet sends, recvs;
    std::size_t matched = 0;  // receives that found their sends
    for (int src = 0; src < trace_.world_size; ++src) {
      const auto s = static_cast<std::size_t>(src);
      for (std::size_t k = from[0][s]; k < from[0][s + 1];) {
        const int dst = sides[0][k].peer;
        const Names::Id tag = sides[0][k].tag;
        sends.clear();
        for (; k < from[0][s + 1] && sides[0][k].peer == dst && sides[0][k].tag == tag; ++k)
          sends.push_back(sides[0][k].form);
        const auto d = static_cast<std::size_t>(dst);
        const auto first = sides[1].begin() + static_cast<std::ptrdiff_t>(from[1][d]);
        const auto last = sides[1].begin() + static_cast<std::ptrdiff_t>(from[1][d + 1]);
        recvs.clear();
        for (auto it = std::lower_bound(first, last, Side{src, tag, std::numeric_limits<std::int32_t>::min()});
             it != last && it->peer == src && it->tag == tag; ++it)
          recvs.push_back(it->form);
        if (recvs.empty()) return false;  // a send with no receive
        matched += recvs.size();
        const std::size_t ps = program(src), pr = program(dst);
        // Most channels carry one form each way (a tag per message): decided by a packed key.
        if (sends.size() == 1 && recvs.size() == 1 && ps + 1 < kPacked12 && pr < kPacked12 &&
            static_cast<std::uint64_t>(sends[0]) < kPacked20 && static_cast<std::uint64_t>(recvs[0]) < kPacked20) {
          const std::uint64_t key = (ps << 52) | (static_cast<std::uint64_t>(sends[0]) << 32) | (pr << 20) |
                                    static_cast<std::uint64_t>(recvs[0]);
          auto [one, fresh] = decided_one.try_emplace(key, 0);
          if (fresh) *one = same_sizes(select(ps, sends), ps, select(pr, recvs), pr) ? 1 : 2;
          if (*one != 1) return false;
          continue;
        }
        auto [it, fresh] = decided.try_emplace({ps, id_of(sends), pr, id_of(recvs)}, false);
        if (fresh) it->second = same_sizes(select(ps, sends), ps, select(pr, recvs), pr);
        if (!it->second) return false;
      }
    }
    return matched == sides[1].size();  // otherwise a receive with no send
  }

  /// Whether operators `sends` of program `ps` and `recvs` of program `pr` pair up one to one
  /// with equal sizes.
  bool same_sizes(const std::vector<std::uint32_t>& sends, std::size_t ps, const std::vector<std::uint32_t>& recvs,
                  std::size_t pr) const {
    if (sends.size() != recvs.size()) return false;
    for (std::size_t k = 0; k < sends.size(); ++k) {
      if (trace_.programs[ps].ops[sends[k]].bytes != trace_.programs[pr].ops[recvs[k]].bytes) return false;
    }
    return true;
  }

  /// check_collectives by form: a member's calls on a group are the operators of its
  /// program of the forms that resolve to the group; members of equal (program, forms) call
  /// alike, and the others are compared call by call as written (kind, size, dtype, root; the
  /// group, and so a root relative to it, is the same). True when every member's calls agree
  /// with the first member's.
  bool collectives_match_by_form() const {
    // Per group, per member: its program and forms there.
    std::vector<std::vector<std::pair<std::size_t, FormSet>>> calls(trace_.groups.size());
    for (std::size_t g = 0; g < trace_.groups.size(); ++g) calls[g].resize(trace_.groups[g].ranks.size());
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<std::uint32_t>& forms = forms_[program(rank)];
      for (std::size_t f = 0; f < forms.size(); ++f) {
        if (!is_collective(trace_.program_ops(rank)[forms[f]].kind)) continue;
        const int g = trace_.op(rank, forms[f]).group;
        const int member = position(g, rank);
        if (member < 0) return false;
        auto& mine = at(calls, g)[static_cast<std::size_t>(member)];
        mine.first = program(rank);
        mine.second.push_back(static_cast<std::int32_t>(f));
      }
    }
    std::set<std::pair<std::pair<std::size_t, FormSet>, std::pair<std::size_t, FormSet>>> alike;  // compared already
    for (std::size_t g = 0; g < trace_.groups.size(); ++g) {
      const auto& members = calls[g];
      for (std::size_t m = 1; m < members.size(); ++m) {
        if (members[m] == members[0] || !alike.emplace(members[0], members[m]).second) continue;
        const std::vector<std::uint32_t>& a = select(members[0].first, members[0].second);
        const std::vector<std::uint32_t>& b = select(members[m].first, members[m].second);
        if (a.size() != b.size()) return false;
        for (std::size_t k = 0; k < a.size(); ++k) {
          const Op& x = trace_.programs[members[0].first].ops[a[k]];
          const Op& y = trace_.programs[members[m].first].ops[b[k]];
          if (x.kind != y.kind || x.bytes != y.bytes || x.dtype != y.dtype || x.root != y.root ||
              (x.relative & kRootInGroup) != (y.relative & kRootInGroup)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  std::string tag_text(Names::Id tag) const { return fmt::format("\"{}\"", trace_.names[tag]); }

  /// Long: one sweep over the sorted channels pairs sends with receives and names each unmatched one.
  void check_point_to_point() const {
    // Every send and receive, sorted by channel (sender, receiver, tag), then sends before
    // receives, each in program order: one flat array, where a map of channels would allocate
    // two lists per channel (a million channels at 10,240 ranks, one message each).
    struct Message {
      int src;
      int dst;
      Names::Id tag;
      bool recv;
      OpRef ref;
      auto key() const { return std::make_tuple(src, dst, tag, recv, ref.index); }
    };
    std::vector<Message> messages;
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<Op>& ops = trace_.program_ops(rank);
      for (std::size_t i : comm(rank)) {
        if (ops[i].kind != OpKind::kSend && ops[i].kind != OpKind::kRecv) continue;
        const Op o = trace_.op(rank, i);
        if (o.kind == OpKind::kSend)
          messages.push_back({rank, o.peer, o.tag, false, {rank, i}});
        else
          messages.push_back({o.peer, rank, o.tag, true, {rank, i}});
      }
    }
    std::sort(messages.begin(), messages.end(), [](const Message& a, const Message& b) { return a.key() < b.key(); });
    struct Channel {
      ChannelKey key;
      std::span<const Message> sends;
      std::span<const Message> recvs;
    };
    std::vector<Channel> channels;
    for (std::size_t i = 0; i < messages.size();) {
      const Message& m = messages[i];
      std::size_t j = i;
      while (j < messages.size() && messages[j].src == m.src && messages[j].dst == m.dst && messages[j].tag == m.tag)
        ++j;
      std::size_t k = i;
      while (k < j && !messages[k].recv) ++k;
      channels.push_back({{m.src, m.dst, m.tag},
                          std::span<const Message>(messages.data() + i, k - i),
                          std::span<const Message>(messages.data() + k, j - k)});
      i = j;
    }
    // Report the earliest problem in file order so that the message is stable.
    const OpRef* worst = nullptr;
    std::string detail;
    const char* suffix = "";
    auto consider = [&](const OpRef& ref, std::string text, const char* field_suffix) {
      if (worst == nullptr || line(ref) < line(*worst)) {
        worst = &ref;
        detail = std::move(text);
        suffix = field_suffix;
      }
    };
    for (const Channel& channel : channels) {
      const ChannelKey& key = channel.key;
      std::size_t matched = std::min(channel.sends.size(), channel.recvs.size());
      for (std::size_t k = 0; k < matched; ++k) {
        const Op s = op(channel.sends[k].ref);
        const Op r = op(channel.recvs[k].ref);
        if (s.bytes != r.bytes) {
          consider(channel.recvs[k].ref,
                   fmt::format("recv of {} bytes from rank {} (tag {}) is matched by a send of {} bytes ({})", r.bytes,
                               key.src, tag_text(key.tag), s.bytes, place(channel.sends[k].ref)),
                   ".bytes");
        }
      }
      for (std::size_t k = matched; k < channel.sends.size(); ++k) {
        consider(channel.sends[k].ref,
                 fmt::format("send #{} from rank {} to rank {} with tag {} has no matching recv "
                             "(rank {} posts {} recv{} from rank {} with this tag)",
                             k + 1, key.src, key.dst, tag_text(key.tag), key.dst, channel.recvs.size(),
                             channel.recvs.size() == 1 ? "" : "s", key.src),
                 "");
      }
      for (std::size_t k = matched; k < channel.recvs.size(); ++k) {
        consider(channel.recvs[k].ref,
                 fmt::format("recv #{} on rank {} from rank {} with tag {} has no matching send "
                             "(rank {} posts {} send{} to rank {} with this tag)",
                             k + 1, key.dst, key.src, tag_text(key.tag), key.src, channel.sends.size(),
                             channel.sends.size() == 1 ? "" : "s", key.dst),
                 "");
      }
    }
    if (worst != nullptr) fail(*worst, detail, suffix);
  }

  void check_collectives() const {
    // Per group, the sequence of collective calls of each member.
    std::vector<std::vector<std::vector<OpRef>>> calls(trace_.groups.size());
    for (std::size_t g = 0; g < trace_.groups.size(); ++g) calls[g].resize(trace_.groups[g].ranks.size());
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      const std::vector<Op>& ops = trace_.program_ops(rank);
      for (std::size_t i : comm(rank)) {
        if (!is_collective(ops[i].kind)) continue;
        const int g = trace_.op(rank, i).group;
        at(calls, g)[static_cast<std::size_t>(position(g, rank))].push_back({rank, i});
      }
    }
    for (std::size_t g = 0; g < trace_.groups.size(); ++g) {
      const Group& group = trace_.groups[g];
      const auto& first = calls[g][0];
      for (std::size_t m = 1; m < group.ranks.size(); ++m) {
        const auto& mine = calls[g][m];
        std::size_t common = std::min(first.size(), mine.size());
        for (std::size_t k = 0; k < common; ++k) compare_calls(group, k, first[k], mine[k]);
        if (mine.size() != first.size()) {
          const auto& longer = mine.size() > first.size() ? mine : first;
          int shorter_rank = mine.size() > first.size() ? group.ranks[0] : group.ranks[m];
          std::size_t shorter_count = std::min(mine.size(), first.size());
          const OpRef& extra = longer[common];
          fail(extra, fmt::format("{} on group \"{}\" is collective #{} of rank {} on this group, but rank {} "
                                  "calls only {} collective{} on it",
                                  op_kind_name(op(extra).kind), group.name, common + 1, extra.rank, shorter_rank,
                                  shorter_count, shorter_count == 1 ? "" : "s"));
        }
      }
    }
  }

  void compare_calls(const Group& group, std::size_t k, const OpRef& ref_a, const OpRef& ref_b) const {
    const Op a = op(ref_a);
    const Op b = op(ref_b);
    auto where = [&](const OpRef& ref) { return fmt::format("rank {} ({})", ref.rank, place(ref)); };
    if (a.kind != b.kind) {
      fail(ref_b, fmt::format("collective #{} on group \"{}\" is {} on rank {} but {} on {}", k + 1, group.name,
                              op_kind_name(b.kind), ref_b.rank, op_kind_name(a.kind), where(ref_a)));
    }
    if (a.bytes != b.bytes) {
      fail(ref_b,
           fmt::format("{} #{} on group \"{}\" has {} bytes on rank {} but {} bytes on {}", op_kind_name(b.kind), k + 1,
                       group.name, b.bytes, ref_b.rank, a.bytes, where(ref_a)),
           ".bytes");
    }
    if (a.dtype != b.dtype) {
      fail(ref_b,
           fmt::format("{} #{} on group \"{}\" has dtype {} on rank {} but {} on {}", op_kind_name(b.kind), k + 1,
                       group.name, dtype_name(b.dtype), ref_b.rank, dtype_name(a.dtype), where(ref_a)),
           ".dtype");
    }
    if (a.root != b.root) {
      fail(ref_b,
           fmt::format("{} #{} on group \"{}\" has root {} on rank {} but root {} on {}", op_kind_name(b.kind), k + 1,
                       group.name, b.root, ref_b.rank, a.root, where(ref_a)),
           ".root");
    }
  }

  const Trace& trace_;
  const OpOrigin* origin_ = nullptr;
  std::vector<std::vector<std::size_t>> comm_;               ///< per program: comm()
  std::vector<std::vector<std::uint32_t>> forms_;            ///< per program: Program::partner_forms(true)
  std::vector<std::vector<std::int32_t>> form_of_;           ///< per program: each operator's form
  std::vector<std::vector<std::pair<int, int>>> positions_;  ///< per rank: (group, its position there)
};

}  // namespace

void validate(const Trace& trace) { Validator(trace, nullptr).run(); }

void validate(const Trace& trace, const OpOrigin& origin) { Validator(trace, &origin).run(); }

}  // namespace ccsim::trace
