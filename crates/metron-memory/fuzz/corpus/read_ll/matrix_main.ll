target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [17 x i8] c"usage: %s N M P\0A\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"%g\0A\00", align 1

define dso_local i32 @main(i32 noundef %argc, i8** noundef %argv) #0 !dbg !200 {
entry:
  call void @llvm.dbg.value(metadata i32 %argc, metadata !204, metadata !DIExpression()), !dbg !206
  call void @llvm.dbg.value(metadata i8** %argv, metadata !205, metadata !DIExpression()), !dbg !206
  %cmp = icmp slt i32 %argc, 4, !dbg !207
  br i1 %cmp, label %if.then, label %if.end, !dbg !209

if.then:                                          ; preds = %entry
  %0 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !210, !tbaa !212
  %arrayidx = getelementptr inbounds i8*, i8** %argv, i64 0, !dbg !214
  %1 = load i8*, i8** %arrayidx, align 8, !dbg !214, !tbaa !212
  %call = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %0, i8* noundef getelementptr inbounds ([17 x i8], [17 x i8]* @.str, i64 0, i64 0), i8* noundef %1), !dbg !215
  br label %return, !dbg !216

if.end:                                           ; preds = %entry
  %arrayidx1 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !217
  %2 = load i8*, i8** %arrayidx1, align 8, !dbg !217, !tbaa !212
  %call2 = call i32 @atoi(i8* noundef %2) #7, !dbg !218
  %arrayidx3 = getelementptr inbounds i8*, i8** %argv, i64 2, !dbg !219
  %3 = load i8*, i8** %arrayidx3, align 8, !dbg !219, !tbaa !212
  %call4 = call i32 @atoi(i8* noundef %3) #7, !dbg !220
  %arrayidx5 = getelementptr inbounds i8*, i8** %argv, i64 3, !dbg !221
  %4 = load i8*, i8** %arrayidx5, align 8, !dbg !221, !tbaa !212
  %call6 = call i32 @atoi(i8* noundef %4) #7, !dbg !222
  %call7 = call double @work(i32 noundef %call2, i32 noundef %call4, i32 noundef %call6), !dbg !223
  %call8 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([4 x i8], [4 x i8]* @.str.1, i64 0, i64 0), double noundef %call7), !dbg !224
  br label %return, !dbg !225

return:                                           ; preds = %if.end, %if.then
  %retval.0 = phi i32 [ 2, %if.then ], [ 0, %if.end ], !dbg !206
  ret i32 %retval.0, !dbg !226
}
