// The Machine code panel: what the machine runs for the source the Code panel shows - the source
// compiled again here by its device's compiler (inspect/machine_code.h) and listed as machine code, LLVM
// IR after O2, PTX or SASS. The gutter numbers each instruction with the source line it was compiled
// from; the cursor on an instruction selects that line in the Code panel, and the Code panel's line
// marks every instruction compiled from it. Compiling happens off the GUI thread, only while the panel
// is visible, once per source. A sampled kernel's instructions are shaded by their share of its samples
// (inspect/hotspot_annotation.h), the share in the gutter; H jumps to the hottest instruction.
// The target box lists the kernel planned again for another target instead (an AMD GPU's ISA from
// clang-15's code object): the gutter's lines are then those of the source planned for that target.
#pragma once
#include <QThreadPool>
#include <QWidget>
#include <memory>

#include "inspect/machine_code.h"
#include "observe/kernel_samples.h"

class QComboBox;
class QLabel;

namespace loupe::views {

class CodeView;
// A kernel source as shown, to be compiled again.
struct KernelSourceRef {
  QString kernel;    // the kernel's name in the trace
  QString device;    // the device that rendered it ("CPU", "LLVM", "CUDA")
  QString function;  // the function the source defines (a NOOPT source's own name)
  QString text;
  bool noopt = false;
  QString trace;         // the trace file and the kernel's id in it: to plan it again for another target
  qint64 kernelId = -1;
  bool operator==(const KernelSourceRef&) const = default;
};

class MachineCodePanel : public QWidget {
  Q_OBJECT
public:
  explicit MachineCodePanel(QWidget* parent = nullptr);
  ~MachineCodePanel() override;

  // The source to list (an empty text clears the panel).
  void showSource(const KernelSourceRef& source);
  // Marks the instructions compiled from this 1-based source line and scrolls to the first.
  void showSourceLine(int line);
  // The samples of the kernel whose source is shown next (null: not sampled); set before showSource().
  void setSamples(std::shared_ptr<const loupe::KernelSamples> samples);
  QString hotspotText() const { return hotspots_; }  // "" without samples
  void jumpToHottestInstruction();

  QString headerText() const;  // plain text
  QComboBox* listingBox() const { return listing_; }
  // The target the kernel is listed for: "" as it ran, else a target of the interpreter ("AMD:gfx1100").
  QComboBox* targetBox() const { return target_; }
  void setTarget(const QString& target);
  // The source the listing was compiled from (planned for the target, or the one shown).
  QString compiledSource() const { return compiledText_; }
  CodeView* codeView() const { return code_; }
  bool isCompiling() const { return compiling_; }
  const loupe::MachineCode& machineCode() const { return *result_; }

Q_SIGNALS:
  // The cursor moved onto an instruction compiled from this source line.
  void sourceLineActivated(int line);
  void listingsReady();  // a compile finished (with listings, reasons or an error)

protected:
  void showEvent(QShowEvent* event) override;

private:
  void compileIfWanted();
  void adopt(quint64 generation, std::shared_ptr<loupe::MachineCode> result, QString error);
  void showListing(int index);
  void markLine(int line, bool reveal);
  void setHeader(const QString& title, const QString& details);
  QString shadeHotspots(const loupe::MachineListing& listing);  // the header's words for them

  QLabel* title_;
  QLabel* details_;
  QComboBox* listing_;
  QComboBox* target_;
  CodeView* code_;
  KernelSourceRef source_;
  KernelSourceRef compiled_;  // the source result_ belongs to
  QString compiledTarget_;    // and the target it was planned for ("" as it ran)
  QString compiledText_;
  std::shared_ptr<loupe::MachineCode> result_ = std::make_shared<loupe::MachineCode>();
  QString error_;
  std::shared_ptr<const loupe::KernelSamples> samples_;
  QString hotspots_;
  int markedLine_ = 0;
  bool compiling_ = false;
  quint64 generation_ = 0;
  QThreadPool pool_;  // one thread: compiles run one at a time, a newer source makes an older one stale
};

} // namespace loupe::views
