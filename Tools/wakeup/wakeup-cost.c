/* wakeup-cost: what one wake-up per datagram costs a UDP receiver on this machine, by the shape of
   its loop, with no work done per datagram. The floor for `mouse3d bench stream`'s 1 kHz and
   many-sender rows (docs/measurements.md, "Per-frame cost, fifth step").

   Build:   gcc -O2 -o /tmp/wakeup-cost Tools/wakeup/wakeup-cost.c
   Run:     Tools/wakeup/run.sh [SENDERS] [SECONDS]   (every receiver shape, twice)
   By hand: /tmp/wakeup-cost recv MODE SECONDS & /tmp/wakeup-cost gen SENDERS SECONDS
            gen: SENDERS sockets, each sending a 72-byte datagram every millisecond, their phases
                 spread over it (as `bench stream --senders` paces them), to 127.0.0.1:47123.
            recv MODE: recv   blocking recv(2), nothing else (bench floor-peer's receiver);
                       recvw  the same and a write(2) of 40 bytes per datagram to /dev/null;
                       mmsgw  blocking recvmmsg(2) (MSG_WAITFORONE) and one write per batch;
                       ppoll  ppoll(2) over the socket and four quiet descriptors (an inotify, a
                              signalfd, two pipes: what `mouse3d receive` watches), then a
                              non-blocking recvmmsg and one write per batch;
                       epoll  the same with epoll_pwait(2) on a set made once.
            Prints CPU per datagram (user, system) and voluntary context switches. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <netinet/in.h>
#include <arpa/inet.h>
static long long now_ns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000LL+t.tv_nsec;}
int main(int argc,char**argv){
  if(argc<4){fprintf(stderr,"wk gen N SECONDS | wk recv MODE SECONDS\n");return 2;}
  struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(47123)};a.sin_addr.s_addr=htonl(INADDR_LOOPBACK);
  double secs=atof(argv[3]);
  if(!strcmp(argv[1],"gen")){
    int n=atoi(argv[2]);int*s=malloc(n*sizeof(int));
    for(int i=0;i<n;i++){s[i]=socket(AF_INET,SOCK_DGRAM,0);}
    char buf[72]={0};long long start=now_ns()+1000000;long long end=start+(long long)(secs*1e9);
    long long sent=0;
    for(long long k=0;;k++){ // tick every 1ms/n
      long long t=start+k*1000000LL/n; if(t>end)break;
      struct timespec ts={t/1000000000LL,t%1000000000LL};
      clock_nanosleep(CLOCK_MONOTONIC,TIMER_ABSTIME,&ts,NULL);
      memcpy(buf,&t,8);
      sendto(s[k%n],buf,sizeof buf,0,(struct sockaddr*)&a,sizeof a);sent++;
    }
    fprintf(stderr,"sent %lld\n",sent);return 0;
  }
  const char*mode=argv[2];
  int s=socket(AF_INET,SOCK_DGRAM,0);int rb=4<<20;setsockopt(s,SOL_SOCKET,SO_RCVBUF,&rb,sizeof rb);
  struct timeval tv={0,200000};setsockopt(s,SOL_SOCKET,SO_RCVTIMEO,&tv,sizeof tv);
  if(bind(s,(struct sockaddr*)&a,sizeof a)){perror("bind");return 1;}
  int out=open("/dev/null",O_WRONLY);
  int extra[4];extra[0]=inotify_init1(IN_NONBLOCK);sigset_t m;sigemptyset(&m);sigaddset(&m,SIGHUP);sigprocmask(SIG_BLOCK,&m,0);extra[1]=signalfd(-1,&m,SFD_NONBLOCK);
  int p[2];pipe(p);extra[2]=p[0];int p2[2];pipe(p2);extra[3]=p2[0];
  struct mmsghdr msgs[64];struct iovec iov[64];char bufs[64][128];struct sockaddr_in from[64];
  for(int i=0;i<64;i++){iov[i].iov_base=bufs[i];iov[i].iov_len=128;memset(&msgs[i],0,sizeof msgs[i]);msgs[i].msg_hdr.msg_iov=&iov[i];msgs[i].msg_hdr.msg_iovlen=1;msgs[i].msg_hdr.msg_name=&from[i];msgs[i].msg_hdr.msg_namelen=sizeof from[i];}
  long long frames=0,wakes=0;long long deadline=now_ns()+(long long)(secs*1e9);
  int ep=-1;
  if(!strcmp(mode,"epoll")){ep=epoll_create1(0);struct epoll_event e={.events=EPOLLIN};e.data.fd=s;epoll_ctl(ep,EPOLL_CTL_ADD,s,&e);for(int i=0;i<4;i++){e.data.fd=extra[i];epoll_ctl(ep,EPOLL_CTL_ADD,extra[i],&e);}}
  char line[64*64];
  while(now_ns()<deadline){
    int n;
    if(!strcmp(mode,"recv")){ n=recv(s,bufs[0],128,0); if(n<0)continue; n=1; }
    else if(!strcmp(mode,"recvw")){ n=recv(s,bufs[0],128,0); if(n<0)continue; n=1; write(out,line,40);}
    else if(!strcmp(mode,"mmsgw")){ for(int i=0;i<64;i++)msgs[i].msg_hdr.msg_namelen=sizeof from[i]; n=recvmmsg(s,msgs,64,MSG_WAITFORONE,NULL); if(n<=0)continue; write(out,line,40*n);}
    else {
      if(ep>=0){struct epoll_event ev[8];struct timespec ts={0,100000000};int r=epoll_pwait(ep,ev,8,100,NULL);(void)ts;if(r<=0)continue;}
      else {struct pollfd f[5];f[0].fd=s;for(int i=0;i<4;i++)f[i+1].fd=extra[i];for(int i=0;i<5;i++){f[i].events=POLLIN;f[i].revents=0;}
        struct timespec ts={0,100000000};int r=ppoll(f,5,&ts,NULL);if(r<=0)continue;}
      wakes++;
      for(int i=0;i<64;i++)msgs[i].msg_hdr.msg_namelen=sizeof from[i];
      n=recvmmsg(s,msgs,64,MSG_DONTWAIT,NULL); if(n<=0)continue; write(out,line,40*n);
    }
    frames+=n;
  }
  struct rusage ru;getrusage(RUSAGE_SELF,&ru);
  double cpu=ru.ru_utime.tv_sec+ru.ru_utime.tv_usec/1e6+ru.ru_stime.tv_sec+ru.ru_stime.tv_usec/1e6;
  printf("%s frames %lld cpu %.1f%% per-frame %.2f us (user %.2f sys %.2f) nvcsw %ld\n",mode,frames,cpu/secs*100,cpu/frames*1e6,(ru.ru_utime.tv_sec+ru.ru_utime.tv_usec/1e6)/frames*1e6,(ru.ru_stime.tv_sec+ru.ru_stime.tv_usec/1e6)/frames*1e6,ru.ru_nvcsw);
  return 0;
}
