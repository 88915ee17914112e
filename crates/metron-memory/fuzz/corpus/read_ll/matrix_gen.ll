target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [17 x i8] c"usage: %s N M P\0A\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"%g\0A\00", align 1

define dso_local void @gen(i32 noundef %n, i32 noundef %m, i32 noundef %p, double* noundef %A, double* noundef %B) #0 !dbg !19 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !24, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 %m, metadata !25, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 %p, metadata !26, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata double* %A, metadata !27, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata double* %B, metadata !28, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 12345, metadata !29, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 0, metadata !31, metadata !DIExpression()), !dbg !42
  %cmp4 = icmp slt i32 0, %n, !dbg !43
  br i1 %cmp4, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !44

for.body.lr.ph:                                   ; preds = %entry
  %0 = sext i32 %m to i64, !dbg !44
  %wide.trip.count21 = zext i32 %n to i64, !dbg !43
  br label %for.body, !dbg !44

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc7
  %split7 = phi i32 [ %s.1.lcssa, %for.inc7 ]
  br label %for.cond.cleanup, !dbg !44

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  %s.0.lcssa = phi i32 [ %split7, %for.cond.for.cond.cleanup_crit_edge ], [ 12345, %entry ], !dbg !45
  br label %for.end9

for.body:                                         ; preds = %for.body.lr.ph, %for.inc7
  %indvars.iv17 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next18, %for.inc7 ]
  %s.05 = phi i32 [ 12345, %for.body.lr.ph ], [ %s.1.lcssa, %for.inc7 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv17, metadata !31, metadata !DIExpression()), !dbg !42
  call void @llvm.dbg.value(metadata i32 %s.05, metadata !29, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 0, metadata !33, metadata !DIExpression()), !dbg !46
  call void @llvm.dbg.value(metadata i32 %s.05, metadata !29, metadata !DIExpression()), !dbg !41
  %cmp21 = icmp slt i32 0, %m, !dbg !47
  br i1 %cmp21, label %for.body4.lr.ph, label %for.cond.cleanup3, !dbg !49

for.body4.lr.ph:                                  ; preds = %for.body
  %wide.trip.count = zext i32 %m to i64, !dbg !47
  br label %for.body4, !dbg !49

for.cond1.for.cond.cleanup3_crit_edge:            ; preds = %for.inc
  %split = phi i32 [ %add, %for.inc ]
  br label %for.cond.cleanup3, !dbg !49

for.cond.cleanup3:                                ; preds = %for.cond1.for.cond.cleanup3_crit_edge, %for.body
  %s.1.lcssa = phi i32 [ %split, %for.cond1.for.cond.cleanup3_crit_edge ], [ %s.05, %for.body ], !dbg !41
  br label %for.end

for.body4:                                        ; preds = %for.body4.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body4.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %s.12 = phi i32 [ %s.05, %for.body4.lr.ph ], [ %add, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !33, metadata !DIExpression()), !dbg !46
  call void @llvm.dbg.value(metadata i32 %s.12, metadata !29, metadata !DIExpression()), !dbg !41
  %mul = mul i32 %s.12, 1103515245, !dbg !50
  %add = add i32 %mul, 12345, !dbg !52
  call void @llvm.dbg.value(metadata i32 %add, metadata !29, metadata !DIExpression()), !dbg !41
  %shr = lshr i32 %add, 16, !dbg !53
  %conv = uitofp i32 %shr to double, !dbg !54
  %div = fdiv double %conv, 6.553600e+04, !dbg !55
  %1 = mul nsw i64 %indvars.iv17, %0, !dbg !56
  %2 = add nsw i64 %1, %indvars.iv, !dbg !57
  %arrayidx = getelementptr inbounds double, double* %A, i64 %2, !dbg !58
  store double %div, double* %arrayidx, align 8, !dbg !59, !tbaa !60
  br label %for.inc, !dbg !64

for.inc:                                          ; preds = %for.body4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !65
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !33, metadata !DIExpression()), !dbg !46
  call void @llvm.dbg.value(metadata i32 %add, metadata !29, metadata !DIExpression()), !dbg !41
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !47
  br i1 %exitcond, label %for.body4, label %for.cond1.for.cond.cleanup3_crit_edge, !dbg !49, !llvm.loop !66

for.end:                                          ; preds = %for.cond.cleanup3
  br label %for.inc7, !dbg !67

for.inc7:                                         ; preds = %for.end
  %indvars.iv.next18 = add nuw nsw i64 %indvars.iv17, 1, !dbg !70
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next18, metadata !31, metadata !DIExpression()), !dbg !42
  call void @llvm.dbg.value(metadata i32 %s.1.lcssa, metadata !29, metadata !DIExpression()), !dbg !41
  %exitcond22 = icmp ne i64 %indvars.iv.next18, %wide.trip.count21, !dbg !43
  br i1 %exitcond22, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !44, !llvm.loop !71

for.end9:                                         ; preds = %for.cond.cleanup
  call void @llvm.dbg.value(metadata i32 0, metadata !36, metadata !DIExpression()), !dbg !73
  call void @llvm.dbg.value(metadata i32 %s.0.lcssa, metadata !29, metadata !DIExpression()), !dbg !41
  %cmp1212 = icmp slt i32 0, %m, !dbg !74
  br i1 %cmp1212, label %for.body15.lr.ph, label %for.cond.cleanup14, !dbg !75

for.body15.lr.ph:                                 ; preds = %for.end9
  %3 = sext i32 %p to i64, !dbg !75
  %wide.trip.count33 = zext i32 %m to i64, !dbg !74
  br label %for.body15, !dbg !75

for.cond11.for.cond.cleanup14_crit_edge:          ; preds = %for.inc34
  br label %for.cond.cleanup14, !dbg !75

for.cond.cleanup14:                               ; preds = %for.cond11.for.cond.cleanup14_crit_edge, %for.end9
  br label %for.end36

for.body15:                                       ; preds = %for.body15.lr.ph, %for.inc34
  %indvars.iv29 = phi i64 [ 0, %for.body15.lr.ph ], [ %indvars.iv.next30, %for.inc34 ]
  %s.213 = phi i32 [ %s.0.lcssa, %for.body15.lr.ph ], [ %s.3.lcssa, %for.inc34 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv29, metadata !36, metadata !DIExpression()), !dbg !73
  call void @llvm.dbg.value(metadata i32 %s.213, metadata !29, metadata !DIExpression()), !dbg !41
  call void @llvm.dbg.value(metadata i32 0, metadata !38, metadata !DIExpression()), !dbg !76
  call void @llvm.dbg.value(metadata i32 %s.213, metadata !29, metadata !DIExpression()), !dbg !41
  %cmp188 = icmp slt i32 0, %p, !dbg !77
  br i1 %cmp188, label %for.body21.lr.ph, label %for.cond.cleanup20, !dbg !79

for.body21.lr.ph:                                 ; preds = %for.body15
  %wide.trip.count27 = zext i32 %p to i64, !dbg !77
  br label %for.body21, !dbg !79

for.cond17.for.cond.cleanup20_crit_edge:          ; preds = %for.inc31
  %split11 = phi i32 [ %add23, %for.inc31 ]
  br label %for.cond.cleanup20, !dbg !79

for.cond.cleanup20:                               ; preds = %for.cond17.for.cond.cleanup20_crit_edge, %for.body15
  %s.3.lcssa = phi i32 [ %split11, %for.cond17.for.cond.cleanup20_crit_edge ], [ %s.213, %for.body15 ], !dbg !41
  br label %for.end33

for.body21:                                       ; preds = %for.body21.lr.ph, %for.inc31
  %indvars.iv23 = phi i64 [ 0, %for.body21.lr.ph ], [ %indvars.iv.next24, %for.inc31 ]
  %s.39 = phi i32 [ %s.213, %for.body21.lr.ph ], [ %add23, %for.inc31 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv23, metadata !38, metadata !DIExpression()), !dbg !76
  call void @llvm.dbg.value(metadata i32 %s.39, metadata !29, metadata !DIExpression()), !dbg !41
  %mul22 = mul i32 %s.39, 1103515245, !dbg !80
  %add23 = add i32 %mul22, 12345, !dbg !82
  call void @llvm.dbg.value(metadata i32 %add23, metadata !29, metadata !DIExpression()), !dbg !41
  %shr24 = lshr i32 %add23, 16, !dbg !83
  %conv25 = uitofp i32 %shr24 to double, !dbg !84
  %div26 = fdiv double %conv25, 6.553600e+04, !dbg !85
  %4 = mul nsw i64 %indvars.iv29, %3, !dbg !86
  %5 = add nsw i64 %4, %indvars.iv23, !dbg !87
  %arrayidx30 = getelementptr inbounds double, double* %B, i64 %5, !dbg !88
  store double %div26, double* %arrayidx30, align 8, !dbg !89, !tbaa !60
  br label %for.inc31, !dbg !90

for.inc31:                                        ; preds = %for.body21
  %indvars.iv.next24 = add nuw nsw i64 %indvars.iv23, 1, !dbg !91
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next24, metadata !38, metadata !DIExpression()), !dbg !76
  call void @llvm.dbg.value(metadata i32 %add23, metadata !29, metadata !DIExpression()), !dbg !41
  %exitcond28 = icmp ne i64 %indvars.iv.next24, %wide.trip.count27, !dbg !77
  br i1 %exitcond28, label %for.body21, label %for.cond17.for.cond.cleanup20_crit_edge, !dbg !79, !llvm.loop !92

for.end33:                                        ; preds = %for.cond.cleanup20
  br label %for.inc34, !dbg !93

for.inc34:                                        ; preds = %for.end33
  %indvars.iv.next30 = add nuw nsw i64 %indvars.iv29, 1, !dbg !94
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next30, metadata !36, metadata !DIExpression()), !dbg !73
  call void @llvm.dbg.value(metadata i32 %s.3.lcssa, metadata !29, metadata !DIExpression()), !dbg !41
  %exitcond34 = icmp ne i64 %indvars.iv.next30, %wide.trip.count33, !dbg !74
  br i1 %exitcond34, label %for.body15, label %for.cond11.for.cond.cleanup14_crit_edge, !dbg !75, !llvm.loop !95

for.end36:                                        ; preds = %for.cond.cleanup14
  ret void, !dbg !97
}
